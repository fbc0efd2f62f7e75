/** An MCP tool as the planner sees it. */
export interface ToolDescription {
  name: string;
  description?: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
}

export interface PlannedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const WORD = /[a-z0-9]+/g;
const STOP_WORDS = new Set(['the', 'a', 'an', 'of', 'to', 'and', 'or', 'in', 'on', 'for', 'with', 'by', 'is', 'it']);

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(WORD) ?? []).filter((word) => !STOP_WORDS.has(word)));
}

/**
 * The offline model's tool use, deterministic so tests and demos can rely on it: tools the brief names (by exact
 * name, in the order they appear) are called in that order; otherwise the one tool whose name and description
 * share the most words with the brief. Arguments come from the brief: numbers for numeric parameters (in order
 * of appearance), the brief's description for text parameters, `true` for flags.
 */
export function planToolCalls(brief: string, tools: ToolDescription[], maxCalls: number): PlannedToolCall[] {
  if (tools.length === 0) return [];
  const lower = brief.toLowerCase();
  const named = tools
    .map((tool) => ({ tool, at: indexOfWord(lower, tool.name.toLowerCase()) }))
    .filter((entry) => entry.at >= 0)
    .sort((left, right) => left.at - right.at)
    .map((entry) => entry.tool);
  const chosen = named.length > 0 ? named : [bestMatch(brief, tools)];
  const numbers = (brief.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  return chosen.slice(0, maxCalls).map((tool) => ({ name: tool.name, arguments: argumentsFor(tool, brief, numbers) }));
}

function bestMatch(brief: string, tools: ToolDescription[]): ToolDescription {
  const briefWords = words(brief);
  let best = tools[0];
  let bestScore = -1;
  for (const tool of tools) {
    const toolWords = words(`${tool.name.replace(/[_-]/g, ' ')} ${tool.description ?? ''}`);
    let score = 0;
    for (const word of toolWords) if (briefWords.has(word)) score += 1;
    if (score > bestScore) [best, bestScore] = [tool, score];
  }
  return best;
}

function argumentsFor(tool: ToolDescription, brief: string, numbers: number[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  let nextNumber = 0;
  for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
    const type = typeof schema === 'object' && schema !== null ? (schema as { type?: unknown }).type : undefined;
    if (type === 'number' || type === 'integer') {
      if (nextNumber < numbers.length) result[name] = numbers[nextNumber++];
    } else if (type === 'boolean') {
      result[name] = true;
    } else if (type === 'string' || type === undefined) {
      result[name] = brief;
    }
  }
  return result;
}

/** Position of `word` in `text` as a whole word (so `add` is not found in `address`), or -1. */
function indexOfWord(text: string, word: string): number {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(^|[^a-z0-9_-])${escaped}($|[^a-z0-9_-])`).exec(text);
  return match ? match.index + match[1].length : -1;
}
