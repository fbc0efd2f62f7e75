import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys: `ioa_` and 43 base64url characters, the encoding of 32 random bytes (256 bits).
 *
 * Stored as SHA-256 of the key's text, not with a slow password hash (bcrypt, argon2): a slow hash protects secrets
 * people choose, which are guessable; a 256-bit random key cannot be guessed, so a leaked table of SHA-256 hashes
 * gives nothing away, and a fast hash lets every request find its key by an index lookup instead of trying each
 * key's salt.
 */
export const API_KEY_PATTERN = /^ioa_[A-Za-z0-9_-]{43}$/;
export const API_KEY_RULE = 'an API key is "ioa_" followed by 43 base64url characters';
const API_KEY_PREFIX = 'ioa_';
/** Enough of a key to tell keys apart in a listing, far too little to guess the rest. */
const SHOWN_PREFIX_LENGTH = 8;

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function apiKeyPrefixOf(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith(API_KEY_PREFIX);
}
