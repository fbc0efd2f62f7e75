/**
 * Polls `probe` until it stops throwing (or returns a truthy value), with a deadline. Tests wait on facts, never
 * on fixed sleeps: a sleep is either too short on a slow machine or wasted time on a fast one.
 */
export async function expectEventually<T>(
  probe: () => Promise<T> | T,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== false && value !== undefined && value !== null) return value;
      lastError = new Error(`probe returned ${String(value)}`);
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`${options.message ?? 'Condition not met in time'}: ${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
