/**
 * Slugs: agent names and skill ids, usable in subjects and URLs. This file imports nothing, so that the web console
 * can take `slugOf` without the contract classes (and their decorators) coming into its bundle.
 */

/** Ids minted by the platform are UUIDs; names are slugs so they can be used in subjects and URLs. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-_]{0,62}$/;

/**
 * Free text as a slug that {@link SLUG_PATTERN} accepts: lowercase, accents dropped ("Résumé" → "resume"), runs of
 * anything else as one "-", at most 63 characters; `fallback` when nothing is left.
 */
export function slugOf(text: string, fallback: string): string {
  const slug = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 63)
    .replace(/[-_]+$/, '');
  return slug || fallback;
}
