import { Injectable } from '@nestjs/common';
import type { RegisterAgentV1Request, TaskBriefV1 } from '@ioa/contracts';
import type { HostedAgent, TaskOutcome, TaskWork } from '../hosted-agent.js';
import { DocumentIndexService } from './document-index.service.js';

const TOP_PASSAGES = 3;
const PASSAGE_CHARS = 700;

/** "Find in the documents how X works" → "how X works": the request's wording is not what we search for. */
export function questionOf(brief: TaskBriefV1): string {
  return brief.description
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(
      /^\s*(please\s+)?(find|look up|search|research|check|read)(\s+(in|through))?(\s+the)?(\s+(docs|documents|documentation|collection))?\s*(for|about|on)?\s*/i,
      '',
    )
    .trim();
}

/** Answers questions from the documents shipped with the platform: the closest passages, with their sources. */
@Injectable()
export class DocResearcherAgent implements HostedAgent {
  readonly name = 'doc-researcher' as const;

  constructor(private readonly index: DocumentIndexService) {}

  card(owner: string): RegisterAgentV1Request {
    return {
      name: this.name,
      description:
        'Researches the platform documentation (architecture, presence, discovery, group chat, subjects, NATS, ' +
        'pgvector) and answers with the most relevant passages and their sources.',
      skills: [
        {
          id: 'research-documents',
          name: 'Research documents',
          description:
            'Finds the passages of the document collection that answer a question and cites the document each ' +
            'passage comes from. Retrieval over embedded Markdown documents stored in pgvector.',
          tags: ['research', 'documents', 'retrieval', 'search', 'documentation', 'questions'],
          examples: [
            'Find in the documents how agent presence works',
            'Look up how the group chat state machine handles a pause',
            'What does the documentation say about subject naming?',
          ],
        },
      ],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/markdown'],
      owner,
      endpoint: { kind: 'nats' },
      version: '1.0.0',
      provider: { organization: 'IoA built-in agents' },
      metadata: { builtIn: true, collection: 'apps/agent-host/documents' },
    };
  }

  async run({ assignment }: TaskWork): Promise<TaskOutcome> {
    const question = questionOf(assignment.brief) || assignment.brief.abstract;
    const passages = await this.index.search(question, TOP_PASSAGES);
    if (passages.length === 0) {
      return { state: 'failed', content: `Nothing in the document collection matches "${question}".` };
    }
    const lines = passages.map((passage, rank) => {
      const excerpt =
        passage.content.length > PASSAGE_CHARS ? `${passage.content.slice(0, PASSAGE_CHARS - 1)}…` : passage.content;
      const where = passage.heading.startsWith(passage.title)
        ? passage.heading
        : `${passage.title} › ${passage.heading}`;
      return `${rank + 1}. **${where}** (source: ${passage.source}, score ${passage.score.toFixed(2)})\n${excerpt}`;
    });
    return { state: 'completed', content: `Passages answering "${question}":\n\n${lines.join('\n\n')}` };
  }
}
