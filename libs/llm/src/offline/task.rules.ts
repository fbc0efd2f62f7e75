import type { TaskBriefV1 } from '@ioa/contracts';
import type { TaskBriefInput, TaskDelegateInput, TaskDelegateOutput } from '../purposes/task.purpose.js';
import { isWriter } from './profiles.js';
import { containsCode, firstSentence, truncate } from './text.js';

const CRITERIA = {
  code: 'Run the JavaScript and report its standard output, standard error and exit code; the task fails if the code does not exit with 0.',
  report: 'A Markdown report with headings and bullet points that covers every input result and invents nothing.',
  research:
    'The passages of the document collection that answer the question, most relevant first, each with its source.',
  other: 'The outcome of the task as text, or a clear reason why it could not be done.',
} as const;

function taskType(input: TaskBriefInput): keyof typeof CRITERIA {
  const tags = new Set(input.assignee.skills.flatMap((skill) => skill.tags.map((tag) => tag.toLowerCase())));
  if (containsCode(input.description) || tags.has('javascript') || tags.has('code')) return 'code';
  if (isWriter(input.assignee) || /\b(report|summari[sz]e|compose|write up)\b/i.test(input.description))
    return 'report';
  if (
    tags.has('research') ||
    tags.has('documents') ||
    /\b(find|look up|research|documents?|explain|search)\b/i.test(input.description)
  ) {
    return 'research';
  }
  return 'other';
}

/**
 * `task.brief`: abstract = the description's first sentence; inputs = the goal's earlier completed results as
 * `### <owner>: <abstract>` sections (bounded); description = the draft's, verbatim; completion criteria by task
 * type — code (the description carries code or the assignee runs code), report (a writer, or the description asks
 * for one), research (the assignee researches documents, or the description asks to find or explain), other.
 */
export function taskBrief(input: TaskBriefInput): TaskBriefV1 {
  const results = input.earlierResults.filter((result) => result.state === 'completed' && result.result);
  const perResult = Math.max(500, Math.floor(18000 / Math.max(1, results.length)));
  const inputs = results
    .map((result) => `### ${result.assigneeName}: ${result.abstract}\n${truncate(result.result ?? '', perResult)}`)
    .join('\n\n');
  return {
    abstract: firstSentence(input.description, 300),
    inputs: truncate(inputs, 20000),
    description: input.description,
    completionCriteria: CRITERIA[taskType(input)],
  };
}

const SUB_TEAM = /\bsub[- ]?teams?\b/i;
// "Form a sub-team to …", "With a sub-team, …", "Use a sub-team for: …" — the lead-in that asks for delegation.
const SUB_TEAM_LEAD_IN =
  /\b(?:(?:please\s+)?(?:form|use|create|assemble|build|with|via|through|ask)\s+)?(?:a\s+|the\s+)?sub[- ]?teams?\b(?:\s+(?:to|for|that|which))?\s*[:,]?\s*/i;

/**
 * `task.delegate`: delegate only when the brief explicitly asks for a sub-team ("sub-team", "subteam", "sub team"
 * in its description or abstract) and depth < maxDepth. The child goal is the description without that request,
 * so the sub-team does not form a sub-team of its own for the same words.
 */
export function taskDelegate(input: TaskDelegateInput): TaskDelegateOutput {
  const asked = SUB_TEAM.test(input.brief.description) || SUB_TEAM.test(input.brief.abstract);
  if (!asked) return { delegate: false, reason: 'The brief does not ask for a sub-team' };
  if (input.depth >= input.maxDepth) {
    return {
      delegate: false,
      reason: `A sub-team was asked for, but depth ${input.depth} has reached maxDepth ${input.maxDepth}`,
    };
  }
  const stripped = input.brief.description.replace(SUB_TEAM_LEAD_IN, '').trim();
  const goal = stripped.length > 0 ? stripped.charAt(0).toUpperCase() + stripped.slice(1) : input.brief.abstract;
  return {
    delegate: true,
    goal: truncate(input.brief.inputs ? `${goal}\n\nInputs:\n${input.brief.inputs}` : goal, 8000),
    reason: 'The brief asks for a sub-team',
  };
}
