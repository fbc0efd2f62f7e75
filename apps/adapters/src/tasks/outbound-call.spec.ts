import { describe, expect, it } from '@jest/globals';
import { describeError, EndpointCallError, isRetryable, withRetries } from './outbound-call.js';

describe('outbound calls', () => {
  it('retries connection failures with backoff, and says how often it tried and why it failed', async () => {
    let attempts = 0;
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    const failure = withRetries('Calling the agent', { attempts: 3, minDelayMs: 1 }, () => {
      attempts += 1;
      return Promise.reject(refused);
    });
    await expect(failure).rejects.toThrow(
      'Calling the agent failed after 3 attempts: fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1)',
    );
    expect(attempts).toBe(3);
  });

  it('does not repeat a final answer (4xx, a refusal)', async () => {
    let attempts = 0;
    const failure = withRetries('Calling the agent', { attempts: 3, minDelayMs: 1 }, () => {
      attempts += 1;
      return Promise.reject(new EndpointCallError('answered HTTP 400', false));
    });
    await expect(failure).rejects.toMatchObject({
      message: 'Calling the agent failed: answered HTTP 400',
      retryable: false,
    });
    expect(attempts).toBe(1);
  });

  it('tells retryable failures from final ones', () => {
    expect(isRetryable(Object.assign(new Error('Bad gateway'), { status: 502 }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('Too many requests'), { status: 429 }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('Unauthorized'), { status: 401 }))).toBe(false);
    expect(isRetryable(new Error('The operation was aborted due to timeout'))).toBe(true);
    expect(isRetryable('not an error')).toBe(false);
    expect(describeError('plain')).toBe('plain');
  });
});
