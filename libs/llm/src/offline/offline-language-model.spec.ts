import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { GroupTaskV1, TaskBriefV1 } from '@ioa/contracts';
import { callFor } from '../language-model.js';
import type { AgentProfile, ConversationMessage } from '../purposes/profiles.js';
import { TeamPickPurpose, TeamQueriesPurpose, type TeamCandidate } from '../purposes/team.purpose.js';
import { ConclusionPurpose, TurnMovePurpose, type TurnMoveInput } from '../purposes/turn.purpose.js';
import { TaskBriefPurpose, TaskDelegatePurpose } from '../purposes/task.purpose.js';
import { WriterReportPurpose } from '../purposes/writer.purpose.js';
import { estimateTokens } from '../usage.js';
import { OfflineLanguageModel } from './offline-language-model.js';
import { splitClauses } from './text.js';

const model = new OfflineLanguageModel();

const GOAL =
  'Compute the sum of the first 100 primes with `let s=0,n=2,c=0;for(;c<100;n++){let p=true;for(let d=2;d*d<=n;d++)if(n%d===0){p=false;break}if(p){s+=n;c++}}console.log(s)`, ' +
  'then find in the documents how agent presence works, and write a short report.';

function newAgent(overrides: Partial<AgentProfile> & { name: string }): AgentProfile {
  return { agentId: randomUUID(), description: '', skills: [], ...overrides };
}

const codeRunner = newAgent({
  name: 'code-runner',
  skills: [
    {
      name: 'Run JavaScript',
      description: 'Executes JavaScript code and returns its output',
      tags: ['javascript', 'code', 'compute'],
    },
  ],
});
const researcher = newAgent({
  name: 'doc-researcher',
  skills: [
    {
      name: 'Research documents',
      description: 'Finds passages in the platform documents that answer a question',
      tags: ['research', 'documents', 'retrieval'],
    },
  ],
});
const writer = newAgent({
  name: 'writer',
  skills: [
    { name: 'Write reports', description: 'Composes a Markdown report from results', tags: ['writing', 'report'] },
  ],
});

function newTask(overrides: Partial<GroupTaskV1> & { assigneeId: string }): GroupTaskV1 {
  return {
    taskId: randomUUID(),
    assigneeName: 'someone',
    assignerId: codeRunner.agentId,
    mode: 'async',
    abstract: 'a task',
    state: 'working',
    ...overrides,
  };
}

function newMessage(overrides: Partial<ConversationMessage> & { seq: number }): ConversationMessage {
  return { type: 'discussion', senderId: codeRunner.agentId, senderName: 'code-runner', content: '...', ...overrides };
}

function turnInput(overrides: Partial<TurnMoveInput> = {}): TurnMoveInput {
  return {
    goal: GOAL,
    self: codeRunner,
    leaderId: codeRunner.agentId,
    turn: 1,
    maxTurns: 12,
    mustConclude: false,
    reason: 'first turn',
    members: [codeRunner, researcher, writer],
    recentMessages: [],
    tasks: [],
    ...overrides,
  };
}

describe('the offline model', () => {
  describe('clause splitting', () => {
    it('splits at connectives and sentence ends but never inside code', () => {
      expect(splitClauses(GOAL)).toEqual([
        expect.stringMatching(
          /^Compute the sum of the first 100 primes with `let s=0,n=2,c=0;for.*console\.log\(s\)`$/,
        ),
        'find in the documents how agent presence works',
        'write a short report',
      ]);
    });
  });

  describe('team.queries', () => {
    it('writes one query per clause, code replaced by words', async () => {
      const { output, usage } = await model.decide(callFor(TeamQueriesPurpose, { goal: GOAL, maxQueries: 6 }));
      expect(output.queries).toEqual([
        'Compute the sum of the first 100 primes with JavaScript code',
        'find in the documents how agent presence works',
        'write a short report',
      ]);
      expect(usage.modelCalls).toBe(1);
      expect(usage.promptTokens).toBeGreaterThan(0);
    });

    it('respects maxQueries', async () => {
      const { output } = await model.decide(
        callFor(TeamQueriesPurpose, { goal: 'Run code. Read documents. Write a report.', maxQueries: 2 }),
      );
      expect(output.queries).toEqual(['Run code', 'Read documents']);
    });
  });

  describe('team.pick', () => {
    const queries = ['run JavaScript code', 'research the documents', 'write a report'];
    function candidate(agent: AgentProfile, matchedQuery: string, score: number): TeamCandidate {
      return { agentId: agent.agentId, name: agent.name, skills: agent.skills, matchedQuery, score };
    }

    it('picks the best candidate above the threshold per query, de-duplicated, with the matched skill as reason', async () => {
      const { output } = await model.decide(
        callFor(TeamPickPurpose, {
          goal: GOAL,
          queries,
          minScore: 0.3,
          maxMembers: 4,
          candidates: [
            candidate(researcher, queries[0], 0.2),
            candidate(codeRunner, queries[0], 0.8),
            candidate(codeRunner, queries[1], 0.9), // already picked for the first query
            candidate(researcher, queries[1], 0.7),
            candidate(writer, queries[2], 0.25), // below the threshold
          ],
        }),
      );
      expect(output.members).toEqual([
        { agentId: codeRunner.agentId, reason: 'Skill "Run JavaScript" matches "run JavaScript code" (score 0.80)' },
        {
          agentId: researcher.agentId,
          reason: 'Skill "Research documents" matches "research the documents" (score 0.70)',
        },
      ]);
    });

    it('picks nobody when no candidate is similar enough', async () => {
      const { output } = await model.decide(
        callFor(TeamPickPurpose, {
          goal: GOAL,
          queries,
          minScore: 0.5,
          maxMembers: 4,
          candidates: [candidate(writer, queries[2], 0.1)],
        }),
      );
      expect(output.members).toEqual([]);
      expect(output.rationale).toContain('No candidate');
    });

    it('stops at maxMembers', async () => {
      const { output } = await model.decide(
        callFor(TeamPickPurpose, {
          goal: GOAL,
          queries,
          minScore: 0,
          maxMembers: 1,
          candidates: [candidate(codeRunner, queries[0], 0.5), candidate(researcher, queries[1], 0.5)],
        }),
      );
      expect(output.members.map((member) => member.agentId)).toEqual([codeRunner.agentId]);
    });
  });

  describe('turn.move', () => {
    it('leader, no tasks yet: one async task per matching clause for non-writers, next speaker itself', async () => {
      const { output } = await model.decide(callFor(TurnMovePurpose, turnInput()));
      expect(output.type).toBe('async_task_assign');
      expect(output.nextSpeaker).toBe(codeRunner.agentId);
      expect(output.tasks).toEqual([
        {
          assigneeId: codeRunner.agentId,
          description: expect.stringContaining('console.log(s)`'),
          abstract: expect.stringMatching(/^Compute the sum/),
        },
        {
          assigneeId: researcher.agentId,
          description: 'find in the documents how agent presence works',
          abstract: 'find in the documents how agent presence works',
        },
      ]);
    });

    it('leader with unfinished tasks: pauses on them', async () => {
      const running = newTask({ assigneeId: researcher.agentId, state: 'working' });
      const done = newTask({ assigneeId: codeRunner.agentId, state: 'completed', result: '24133' });
      const { output } = await model.decide(
        callFor(
          TurnMovePurpose,
          turnInput({
            turn: 2,
            tasks: [done, running],
            recentMessages: [newMessage({ seq: 1, type: 'async_task_assign' })],
          }),
        ),
      );
      expect(output).toMatchObject({ type: 'pause', awaitTaskIds: [running.taskId] });
    });

    it('leader with every task finished and a writer: a sync task for the writer carrying the results', async () => {
      const tasks = [
        newTask({
          assigneeId: codeRunner.agentId,
          assigneeName: 'code-runner',
          abstract: 'Compute',
          state: 'completed',
          result: '24133',
        }),
        newTask({
          assigneeId: researcher.agentId,
          assigneeName: 'doc-researcher',
          abstract: 'Presence',
          state: 'failed',
          result: 'no index',
        }),
      ];
      const { output } = await model.decide(
        callFor(
          TurnMovePurpose,
          turnInput({ turn: 3, tasks, recentMessages: [newMessage({ seq: 1, type: 'async_task_assign' })] }),
        ),
      );
      expect(output.type).toBe('sync_task_assign');
      expect(output.nextSpeaker).toBe(codeRunner.agentId);
      expect(output.tasks).toHaveLength(1);
      expect(output.tasks?.[0].assigneeId).toBe(writer.agentId);
      expect(output.tasks?.[0].description).toMatch(
        /^Compose a report from the results below\.\n\nGoal: Compute the sum/,
      );
      expect(output.tasks?.[0].description).toContain('### code-runner: Compute\n24133');
      expect(output.tasks?.[0].description).toContain('### doc-researcher: Presence\n(failed: no index)');
    });

    it('leader after the writer reported: concludes', async () => {
      const tasks = [
        newTask({ assigneeId: codeRunner.agentId, state: 'completed', result: '24133' }),
        newTask({ assigneeId: writer.agentId, mode: 'sync', state: 'completed', result: '# Report' }),
      ];
      const { output } = await model.decide(
        callFor(
          TurnMovePurpose,
          turnInput({ turn: 4, tasks, recentMessages: [newMessage({ seq: 3, type: 'sync_task_assign' })] }),
        ),
      );
      expect(output.type).toBe('conclude');
    });

    it('leader without a writer: concludes once every task finished', async () => {
      const tasks = [newTask({ assigneeId: codeRunner.agentId, state: 'completed', result: '24133' })];
      const { output } = await model.decide(
        callFor(
          TurnMovePurpose,
          turnInput({
            members: [codeRunner, researcher],
            tasks,
            recentMessages: [newMessage({ seq: 1, type: 'async_task_assign' })],
          }),
        ),
      );
      expect(output.type).toBe('conclude');
    });

    it("leader with a person's follow-up after the last assignment: assigns the follow-up's clauses", async () => {
      const tasks = [
        newTask({ assigneeId: codeRunner.agentId, state: 'completed', result: '24133' }),
        newTask({ assigneeId: writer.agentId, state: 'completed', result: 'r' }),
      ];
      const { output } = await model.decide(
        callFor(
          TurnMovePurpose,
          turnInput({
            tasks,
            recentMessages: [
              newMessage({ seq: 1, type: 'async_task_assign' }),
              newMessage({ seq: 5, type: 'conclude' }),
              newMessage({
                seq: 6,
                type: 'user',
                senderId: 'user',
                senderName: 'user',
                content: 'Also run `console.log(2+2)`.',
              }),
            ],
          }),
        ),
      );
      expect(output).toMatchObject({
        type: 'async_task_assign',
        tasks: [{ assigneeId: codeRunner.agentId, description: 'run `console.log(2+2)`' }],
      });
    });

    it('non-leader: acknowledges and hands the turn back to the leader', async () => {
      const { output } = await model.decide(callFor(TurnMovePurpose, turnInput({ self: researcher })));
      expect(output).toEqual({
        type: 'discussion',
        content: expect.stringContaining('code-runner, over to you'),
        nextSpeaker: codeRunner.agentId,
      });
    });

    it('mustConclude: concludes whatever the state', async () => {
      const tasks = [newTask({ assigneeId: researcher.agentId, state: 'working' })];
      const { output } = await model.decide(
        callFor(TurnMovePurpose, turnInput({ mustConclude: true, reason: 'token budget reached', tasks })),
      );
      expect(output).toEqual({ type: 'conclude', content: 'Concluding now (token budget reached).' });
    });

    it('is deterministic: the same input gives the same move and the same usage', async () => {
      const first = await model.decide(callFor(TurnMovePurpose, turnInput()));
      const second = await model.decide(callFor(TurnMovePurpose, turnInput()));
      expect(second).toEqual(first);
    });
  });

  describe('conclusion', () => {
    const base = {
      goal: GOAL,
      self: codeRunner,
      members: [codeRunner, researcher, writer],
      recentMessages: [],
      reason: 'done',
      forced: false,
    };

    it("is the writer's latest report when there is one", async () => {
      const tasks = [
        newTask({ assigneeId: codeRunner.agentId, state: 'completed', result: '24133' }),
        newTask({ assigneeId: writer.agentId, state: 'completed', result: '# The report' }),
      ];
      const { output } = await model.decide(callFor(ConclusionPurpose, { ...base, tasks }));
      expect(output.conclusion).toBe('# The report');
    });

    it('otherwise summarizes every task, and says when it was forced', async () => {
      const tasks = [
        newTask({
          assigneeId: codeRunner.agentId,
          assigneeName: 'code-runner',
          abstract: 'Compute',
          state: 'completed',
          result: '24133',
        }),
        newTask({
          assigneeId: researcher.agentId,
          assigneeName: 'doc-researcher',
          abstract: 'Presence',
          state: 'working',
        }),
      ];
      const { output } = await model.decide(
        callFor(ConclusionPurpose, { ...base, tasks, forced: true, reason: 'time budget reached' }),
      );
      expect(output.conclusion).toContain('_Concluded early: time budget reached._');
      expect(output.conclusion).toContain('- **code-runner** — Compute (completed): 24133');
      expect(output.conclusion).toContain('- **doc-researcher** — Presence (working)');
    });
  });

  describe('task.brief', () => {
    const assignee = codeRunner;
    it('takes the first sentence as abstract, earlier results as inputs, and code criteria for code', async () => {
      const { output } = await model.decide(
        callFor(TaskBriefPurpose, {
          goal: GOAL,
          description: 'Run `console.log(1+1)`. Report the output.',
          abstract: 'Run it',
          assignee,
          recentMessages: [],
          earlierResults: [
            {
              abstract: 'Presence',
              assigneeName: 'doc-researcher',
              state: 'completed',
              result: 'Heartbeats every 10 s.',
            },
            { abstract: 'Broken', assigneeName: 'x', state: 'failed', result: 'nope' },
          ],
        }),
      );
      expect(output).toEqual({
        abstract: 'Run `console.log(1+1)`.',
        inputs: '### doc-researcher: Presence\nHeartbeats every 10 s.',
        description: 'Run `console.log(1+1)`. Report the output.',
        completionCriteria: expect.stringMatching(/^Run the JavaScript/),
      });
    });

    it('gives report criteria to a writer and research criteria to a researcher', async () => {
      const common = { goal: GOAL, abstract: 'x', recentMessages: [], earlierResults: [] };
      const report = await model.decide(
        callFor(TaskBriefPurpose, { ...common, description: 'Compose a report.', assignee: writer }),
      );
      const research = await model.decide(
        callFor(TaskBriefPurpose, { ...common, description: 'How does presence work?', assignee: researcher }),
      );
      expect(report.output.completionCriteria).toMatch(/^A Markdown report/);
      expect(research.output.completionCriteria).toMatch(/^The passages/);
      expect(report.output.inputs).toBe('');
    });
  });

  describe('task.delegate', () => {
    const brief: TaskBriefV1 = {
      abstract: 'Study presence',
      inputs: '',
      description: 'Form a sub-team to research how presence works and write a summary',
      completionCriteria: 'c',
    };

    it('delegates when the brief asks for a sub-team and depth < maxDepth, without the request in the child goal', async () => {
      const { output } = await model.decide(
        callFor(TaskDelegatePurpose, { agent: researcher, brief, depth: 0, maxDepth: 1 }),
      );
      expect(output).toEqual({
        delegate: true,
        goal: 'Research how presence works and write a summary',
        reason: 'The brief asks for a sub-team',
      });
    });

    it('does not delegate at maxDepth', async () => {
      const { output } = await model.decide(
        callFor(TaskDelegatePurpose, { agent: researcher, brief, depth: 1, maxDepth: 1 }),
      );
      expect(output.delegate).toBe(false);
      expect(output.reason).toContain('maxDepth');
    });

    it('does not delegate when the brief does not ask', async () => {
      const { output } = await model.decide(
        callFor(TaskDelegatePurpose, {
          agent: researcher,
          brief: { ...brief, description: 'Research presence' },
          depth: 0,
          maxDepth: 3,
        }),
      );
      expect(output).toEqual({ delegate: false, reason: 'The brief does not ask for a sub-team' });
    });
  });

  describe('writer.report', () => {
    it('assembles a report with a heading per result and bullet points', async () => {
      const { output } = await model.decide(
        callFor(WriterReportPurpose, {
          title: 'Compose a report',
          goal: 'Explain presence',
          description:
            'Compose a report from these results:\n\n### code-runner: Compute\n24133\n\n### doc-researcher: Presence\nduplicate',
          inputs: '### doc-researcher: Presence\n- Agents heartbeat.\n- Silence past the TTL\n  means offline.',
        }),
      );
      expect(output.report).toBe(
        [
          '# Report: Explain presence',
          '## Summary',
          '- 2 result(s): doc-researcher: Presence; code-runner: Compute',
          '## doc-researcher: Presence',
          '- Agents heartbeat.\n- Silence past the TTL means offline.',
          '## code-runner: Compute',
          '- 24133',
        ].join('\n\n'),
      );
    });

    it('treats inputs without sections as one section', async () => {
      const { output } = await model.decide(
        callFor(WriterReportPurpose, {
          title: 'T',
          description: 'd',
          inputs: 'paragraph one,\nwrapped\n\nparagraph two',
        }),
      );
      expect(output.report).toContain('# T\n\n## Summary');
      expect(output.report).toContain('## Inputs\n\n- paragraph one, wrapped\n- paragraph two');
    });
  });

  it('estimates tokens as words / 0.75', () => {
    expect(estimateTokens('one two three')).toBe(4);
    expect(estimateTokens('')).toBe(0);
  });

  it('rejects an input that does not match the purpose', async () => {
    await expect(model.decide({ ...callFor(TeamQueriesPurpose, { goal: '', maxQueries: 3 }) })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
