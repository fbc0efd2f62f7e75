import { describe, expect, it } from '@jest/globals';
import { isValidSignature, signBody } from './webhook-signature.js';

describe('webhook signatures', () => {
  const body = Buffer.from('{"result":"done"}');

  it('is sha256=<hex HMAC> of the raw body, and verifies', () => {
    const signature = signBody('secret-of-sixteen+', body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(isValidSignature('secret-of-sixteen+', body, signature)).toBe(true);
  });

  it('refuses another secret, a changed body, a missing or malformed header', () => {
    const signature = signBody('secret-of-sixteen+', body);
    expect(isValidSignature('another-secret-here', body, signature)).toBe(false);
    expect(isValidSignature('secret-of-sixteen+', Buffer.from('{"result":"DONE"}'), signature)).toBe(false);
    expect(isValidSignature('secret-of-sixteen+', body, undefined)).toBe(false);
    expect(isValidSignature('secret-of-sixteen+', body, 'sha256=abc')).toBe(false);
  });
});
