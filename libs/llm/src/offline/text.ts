/**
 * Small, deterministic text tools for the offline model: clause splitting that never cuts through code, keyword
 * extraction with a naive stemmer, and keyword overlap scoring. No language model, no randomness.
 */

const CODE_SPAN = /```[\s\S]*?```|`[^`\n]+`/g;
// Private-use characters as placeholder brackets: they never occur in real text.
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** Replaces fenced blocks and inline code with placeholders so punctuation inside code is not mistaken for prose. */
function maskCode(text: string): { masked: string; restore: (part: string) => string } {
  const spans: string[] = [];
  const masked = text.replace(CODE_SPAN, (span) => `\uE000${spans.push(span) - 1}\uE001`);
  return { masked, restore: (part) => part.replace(PLACEHOLDER, (_match, index: string) => spans[Number(index)]) };
}

/** True when the text carries code (fenced or in backticks). */
export function containsCode(text: string): boolean {
  return /```[\s\S]*?```|`[^`\n]+`/.test(text);
}

// Sentence ends, semicolons, line breaks, and the connectives people use to chain steps ("…, then …",
// "… and then …", "…, and …", "… and also …"). A bare " and " is kept: "search and summarize" is one step.
const CLAUSE_BOUNDARY =
  /(?<=[.!?;])\s+|;|\n+|,\s*and then\s+|\s+and then\s+|,\s*then\s+|,\s*and also\s+|\s+and also\s+|,\s+and\s+/i;

/** Splits a request into its steps, keeping code verbatim. Steps without any keyword are dropped. */
export function splitClauses(text: string): string[] {
  const { masked, restore } = maskCode(text);
  return masked
    .split(CLAUSE_BOUNDARY)
    .map((part) =>
      restore(
        (part ?? '')
          .trim()
          .replace(/^(and|then|also)\s+/i, '')
          .replace(/[\s.;,!]+$/, ''),
      ),
    )
    .filter((part) => keywords(part).size > 0);
}

/** The first sentence (outside code), at most `max` characters. */
export function firstSentence(text: string, max = 300): string {
  const { masked, restore } = maskCode(text.trim());
  const end = masked.search(/[.!?](\s|$)|\n/);
  const sentence = restore(end >= 0 ? masked.slice(0, end + 1) : masked).trim();
  return truncate(sentence.length > 0 ? sentence : text.trim(), max);
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

const STOPWORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto over under about as is are was ' +
    'were be been being it its this that these those there here what which who whom whose how why when where ' +
    'do does did done can could should would will shall may might must i you he she we they me him her us them ' +
    'my your our their all any each every some such no not only own same so than too very just also please ' +
    'use using make get give let one two new via per out up down off again further once more most other like'
  ).split(' '),
);

function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('es') && /(ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * Content words of a text, stemmed. Code is not read word by word; its presence adds the keywords `code` and
 * `javascript`, so a step carrying code matches an agent whose skills are about running code.
 */
export function keywords(text: string): Set<string> {
  const result = new Set<string>();
  if (containsCode(text)) {
    result.add('code');
    result.add('javascript');
  }
  const prose = text.replace(CODE_SPAN, ' ').toLowerCase();
  for (const word of prose.match(/[a-z0-9]+/g) ?? []) {
    if (word.length < 3 || STOPWORDS.has(word)) continue;
    result.add(stem(word));
  }
  return result;
}

function wordsMatch(left: string, right: string): boolean {
  if (left === right) return true;
  // "document" ~ "documentation", "summar" ~ "summary": a shared stem of at least five letters.
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  return short.length >= 5 && long.startsWith(short);
}

/** How many of `query`'s keywords appear (or share a stem) among `target`'s. */
export function overlap(query: Set<string>, target: Set<string>): number {
  let score = 0;
  for (const word of query) {
    for (const candidate of target) {
      if (wordsMatch(word, candidate)) {
        score += 1;
        break;
      }
    }
  }
  return score;
}
