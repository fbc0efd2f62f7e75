import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Marks a sealed value; anything else in a secret column is a plaintext left from before encryption. */
const SEALED_PREFIX = 'aes256gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Agents' secrets at rest: AES-256-GCM (node:crypto) under a master key, with the earlier master keys still
 * accepted so the master key can be rotated. A sealed value names the key that sealed it by a short fingerprint
 * (`aes256gcm.<key id>.<iv>.<tag>.<ciphertext>`, base64url), so opening picks the right key and a rotation knows
 * what to re-seal. GCM's tag makes a tampered or wrongly-keyed value fail to open rather than read as garbage.
 */
export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly byId: Map<string, Buffer>;

  /** `key` and `previousKeys`: 32-byte keys. */
  constructor(key: Buffer, previousKeys: Buffer[] = []) {
    for (const candidate of [key, ...previousKeys]) {
      if (candidate.length !== 32) throw new Error('A secret key must be 32 bytes (AES-256)');
    }
    this.current = { id: keyIdOf(key), key };
    this.byId = new Map([...previousKeys, key].map((candidate) => [keyIdOf(candidate), candidate]));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [SEALED_PREFIX, this.current.id, b64(iv), b64(tag), b64(ciphertext)].join('.');
  }

  /** The plaintext of a sealed value (a legacy plaintext is returned as it is). Throws when no key opens it. */
  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const [, keyId, iv, tag, ciphertext] = stored.split('.');
    const key = this.byId.get(keyId);
    if (!key)
      throw new Error(`The secret was sealed with key ${keyId}, which is neither the current nor a previous key`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether `stored` should be re-sealed: a legacy plaintext, or sealed under an earlier master key. */
  needsResealing(stored: string): boolean {
    return !isSealed(stored) || stored.split('.')[1] !== this.current.id;
  }
}

function isSealed(stored: string): boolean {
  return stored.startsWith(`${SEALED_PREFIX}.`) && stored.split('.').length === 5;
}

/** A key's public fingerprint: never the key, enough to tell keys apart. */
function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}
