import { API_KEY_PATTERN, apiKeyPrefixOf, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';

describe('API keys', () => {
  it('are ioa_ and 43 base64url characters (256 random bits), different every time', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(keys.size).toBe(50);
    for (const key of keys) expect(key).toMatch(API_KEY_PATTERN);
  });

  it('are stored as a SHA-256 hex digest that does not contain the key', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashApiKey(key));
    expect(hash).not.toContain(key.slice(4, 12));
    expect(hashApiKey(generateApiKey())).not.toBe(hash);
  });

  it('show only a short prefix in listings', () => {
    const key = generateApiKey();
    expect(apiKeyPrefixOf(key)).toBe(key.slice(0, 8));
    expect(looksLikeApiKey(key)).toBe(true);
    expect(looksLikeApiKey('eyJhbGciOiJSUzI1NiJ9.e30.sig')).toBe(false);
  });
});
