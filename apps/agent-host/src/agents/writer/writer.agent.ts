import { Inject, Injectable } from '@nestjs/common';
import type { RegisterAgentV1Request } from '@ioa/contracts';
import { callFor, LANGUAGE_MODEL, WriterReportPurpose, type LanguageModel } from '@ioa/llm';
import type { HostedAgent, TaskOutcome, TaskWork } from '../hosted-agent.js';

/** Composes reports from the results a task's brief carries, through the model (`writer.report`). */
@Injectable()
export class WriterAgent implements HostedAgent {
  readonly name = 'writer' as const;

  constructor(@Inject(LANGUAGE_MODEL) private readonly model: LanguageModel) {}

  card(owner: string): RegisterAgentV1Request {
    return {
      name: this.name,
      description: 'Writes structured Markdown reports and summaries from the results other agents produced.',
      skills: [
        {
          id: 'write-report',
          name: 'Write reports',
          description:
            'Composes a concise Markdown report with headings and bullet points from task results and notes, ' +
            'covering every result and inventing nothing.',
          tags: ['writing', 'report', 'summary', 'markdown', 'compose'],
          examples: [
            'Write a short report of these results',
            'Summarize the findings for the user',
            'Compose a report',
          ],
        },
      ],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/markdown'],
      owner,
      endpoint: { kind: 'nats' },
      version: '1.0.0',
      provider: { organization: 'IoA built-in agents' },
      metadata: { builtIn: true, model: this.model.name },
    };
  }

  async run({ assignment }: TaskWork): Promise<TaskOutcome> {
    const { brief } = assignment;
    // A leader's request names the goal on a "Goal:" line (the offline rules write it so); it titles the report.
    const goal = /^Goal:\s*(.+)$/m.exec(brief.description)?.[1]?.trim();
    const { output, usage } = await this.model.decide(
      callFor(WriterReportPurpose, {
        title: brief.abstract,
        description: brief.description,
        inputs: brief.inputs,
        goal,
      }),
    );
    return { state: 'completed', content: output.report, usage };
  }
}
