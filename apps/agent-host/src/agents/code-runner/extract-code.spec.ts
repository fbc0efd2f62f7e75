import { describe, expect, it } from '@jest/globals';
import type { TaskBriefV1 } from '@ioa/contracts';
import { extractJavaScript } from './extract-code.js';

function newBrief(overrides: Partial<TaskBriefV1>): TaskBriefV1 {
  return {
    abstract: 'Run code',
    inputs: '',
    description: 'Run it',
    completionCriteria: 'Print the output',
    ...overrides,
  };
}

describe('extractJavaScript', () => {
  it('takes fenced JavaScript blocks of the description, joined', () => {
    const description =
      'Run these:\n```js\nconst a = 1;\n```\nand\n```\nconsole.log(a + 1);\n```\nignore ```python\nprint(1)\n```';
    expect(extractJavaScript(newBrief({ description }))).toBe('const a = 1;\n;\nconsole.log(a + 1);');
  });

  it('falls back to fenced blocks of the inputs', () => {
    expect(
      extractJavaScript(
        newBrief({ description: 'Run the snippet from the inputs', inputs: '```javascript\nconsole.log(42)\n```' }),
      ),
    ).toBe('console.log(42)');
  });

  it('otherwise takes the longest backticked span of the description', () => {
    expect(
      extractJavaScript(newBrief({ description: 'Name it `x` and run `console.log([1, 2].map((n) => n * 2))`' })),
    ).toBe('console.log([1, 2].map((n) => n * 2))');
  });

  it('finds nothing in a brief without code', () => {
    expect(extractJavaScript(newBrief({ description: 'Compute the primes below 10' }))).toBeUndefined();
  });
});
