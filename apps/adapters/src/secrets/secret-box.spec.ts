import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { SecretBox } from './secret-box.js';

const key = () => randomBytes(32);

describe('SecretBox', () => {
  it('seals a secret so that it reads back, never appears in the sealed form, and seals differently each time', () => {
    const box = new SecretBox(key());
    const first = box.seal('sk-live-abcdef');
    const second = box.seal('sk-live-abcdef');
    expect(first).not.toContain('sk-live');
    expect(first).toMatch(/^aes256gcm\.[A-Za-z0-9_-]{8}\./);
    expect(first).not.toBe(second);
    expect(box.open(first)).toBe('sk-live-abcdef');
    expect(box.open(second)).toBe('sk-live-abcdef');
  });

  it('refuses a tampered value rather than reading garbage', () => {
    const box = new SecretBox(key());
    const parts = box.seal('webhook-secret-0123456789').split('.');
    const ciphertext = Buffer.from(parts[4], 'base64url');
    ciphertext[0] ^= 1;
    parts[4] = ciphertext.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('opens what an earlier master key sealed, and says it needs re-sealing; a dropped key cannot open it', () => {
    const oldKey = key();
    const sealedBefore = new SecretBox(oldKey).seal('bearer-token');
    const rotated = new SecretBox(key(), [oldKey]);
    expect(rotated.open(sealedBefore)).toBe('bearer-token');
    expect(rotated.needsResealing(sealedBefore)).toBe(true);
    const resealed = rotated.seal(rotated.open(sealedBefore));
    expect(rotated.needsResealing(resealed)).toBe(false);
    expect(() => new SecretBox(key()).open(sealedBefore)).toThrow(/neither the current nor a previous key/);
  });

  it('reads a plaintext left from before encryption, and marks it for sealing', () => {
    const box = new SecretBox(key());
    expect(box.open('legacy-plaintext-secret')).toBe('legacy-plaintext-secret');
    expect(box.needsResealing('legacy-plaintext-secret')).toBe(true);
  });

  it('accepts only 32-byte keys', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
