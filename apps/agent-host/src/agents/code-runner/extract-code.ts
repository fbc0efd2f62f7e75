import type { TaskBriefV1 } from '@ioa/contracts';

const FENCED = /```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)```/g;
const INLINE = /`([^`\n]+)`/g;
const JAVASCRIPT_FENCES = new Set(['', 'js', 'javascript', 'mjs', 'cjs', 'node']);

/**
 * The JavaScript a brief asks to run: every fenced block (untagged or tagged js/javascript) of the description,
 * else of the inputs, joined; otherwise the longest inline `backticked` span of the description. Undefined when
 * the brief carries no code.
 */
export function extractJavaScript(brief: TaskBriefV1): string | undefined {
  for (const text of [brief.description, brief.inputs]) {
    const blocks = [...text.matchAll(FENCED)]
      .filter((match) => JAVASCRIPT_FENCES.has(match[1].toLowerCase()))
      .map((match) => match[2].trim())
      .filter((block) => block.length > 0);
    if (blocks.length > 0) return blocks.join('\n;\n');
  }
  const spans = [...brief.description.replace(FENCED, ' ').matchAll(INLINE)].map((match) => match[1].trim());
  const longest = spans.sort((left, right) => right.length - left.length)[0];
  return longest && longest.length > 0 ? longest : undefined;
}
