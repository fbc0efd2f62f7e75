import { createHash } from 'node:crypto';

/**
 * Turns texts into unit-length vectors for the researcher's index. An interface, so that the platform's shared
 * embedder (discovery's, once it moves to a library) or a remote model can replace the minimal one below; the
 * index stores `model` beside every vector and re-indexes when it changes.
 */
export interface TextEmbedder {
  readonly model: string;
  readonly dimension: number;
  embed(texts: string[]): Promise<number[][]>;
}

export const TEXT_EMBEDDER = Symbol('TEXT_EMBEDDER');

const STOPWORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into over under about as is are was were be ' +
    'been being it its this that these those there here what which who whom how why when where do does did can could ' +
    'should would will shall may might must i you he she we they me him her us them my your our their all any each ' +
    'every some such no not only own same so than too very just also please use using get let one new via per out up'
  ).split(' '),
);

function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ies', 'es', 'ed', 'ly', 's']) {
    if (word.length - suffix.length >= 4 && word.endsWith(suffix))
      return suffix === 'ies' ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
  }
  return word;
}

export function tokens(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .match(/[a-z0-9]+/g) ?? []
  )
    .filter((word) => word.length > 1 && !STOPWORDS.has(word))
    .map(stem);
}

/**
 * A minimal lexical embedder: stemmed words and word pairs, hashed into `dimension` buckets with a sign (the
 * "hashing trick"), log-scaled counts, L2-normalised. Deterministic and offline; it ranks by shared vocabulary,
 * not meaning — enough for a small document collection whose questions use its words.
 */
export class HashingTextEmbedder implements TextEmbedder {
  readonly model: string;

  constructor(readonly dimension = 512) {
    this.model = `local-hashing-v1-${dimension}`;
  }

  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => this.embedOne(text)));
  }

  embedOne(text: string): number[] {
    const counts = new Map<string, number>();
    const words = tokens(text);
    const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    words.forEach((word, index) => {
      add(`w:${word}`, 1);
      if (index > 0) add(`b:${words[index - 1]}_${word}`, 0.5);
    });
    const vector = new Array<number>(this.dimension).fill(0);
    for (const [feature, count] of counts) {
      const digest = createHash('sha1').update(feature).digest();
      const bucket = digest.readUInt32BE(0) % this.dimension;
      const sign = (digest[4] & 1) === 0 ? 1 : -1;
      vector[bucket] += sign * (1 + Math.log(count));
    }
    const norm = Math.hypot(...vector);
    return norm > 0 ? vector.map((value) => value / norm) : vector;
  }
}
