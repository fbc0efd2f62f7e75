/**
 * The admin API key of every test stack: `applyEnvironment` hands it to the gateway as IOA_ADMIN_API_KEY, which
 * provisions it as the local admin's key at boot (as `npm start` does with a key it generates once). A fixed value
 * is fine here because a test stack lives for one test file, on loopback.
 */
export const TEST_ADMIN_API_KEY = 'ioa_Je0IRPm-_dKrw0XeX8rh9afmuLxYHWvsqmbk3Z1KniA';

/** Headers that authenticate a REST call as the test stack's admin. */
export function adminAuthHeaders(): Record<string, string> {
  return { authorization: `Bearer ${TEST_ADMIN_API_KEY}` };
}
