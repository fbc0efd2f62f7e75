import { Module } from '@nestjs/common';
import { EMBEDDER, LocalHashEmbedder } from '@ioa/embeddings';
import { LlmModule } from '@ioa/llm';
import { agentHostConfig, type AgentHostConfig } from '../agent-host.config.js';
import { CodeRunnerAgent } from './code-runner/code-runner.agent.js';
import { DocResearcherAgent } from './doc-researcher/doc-researcher.agent.js';
import { DocumentIndexRepository } from './doc-researcher/document-index.repository.js';
import { DocumentIndexService } from './doc-researcher/document-index.service.js';
import { HOSTED_AGENTS, type HostedAgent } from './hosted-agent.js';
import { WriterAgent } from './writer/writer.agent.js';

/** The built-in agents; `HOSTED_AGENTS` lists those the configuration enables. */
@Module({
  imports: [LlmModule],
  providers: [
    CodeRunnerAgent,
    DocResearcherAgent,
    WriterAgent,
    DocumentIndexRepository,
    DocumentIndexService,
    // The platform's deterministic local embedder (the same one discovery uses by default).
    { provide: EMBEDDER, useFactory: () => new LocalHashEmbedder() },
    {
      provide: HOSTED_AGENTS,
      inject: [agentHostConfig.KEY, CodeRunnerAgent, DocResearcherAgent, WriterAgent],
      useFactory: (config: AgentHostConfig, ...agents: HostedAgent[]): HostedAgent[] =>
        agents.filter((agent) => config.agents.includes(agent.name)),
    },
  ],
  exports: [HOSTED_AGENTS, DocumentIndexService],
})
export class AgentsModule {}
