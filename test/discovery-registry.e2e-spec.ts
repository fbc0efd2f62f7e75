import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import {
  DeregisterAgentV1,
  RegisterAgentV1,
  SearchAgentsV1,
  UpdateAgentV1,
  type AgentCardV1,
  type RegisterAgentV1Request,
  type SearchAgentsV1Response,
} from '@ioa/contracts';
import { ContractClient, createService } from '@ioa/messaging';
import { connectRaw, rawRequest, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { RegistryModule } from '../apps/registry/src/registry.module.js';
import { DiscoveryModule } from '../apps/discovery/src/discovery.module.js';
import { AgentIndexRepository } from '../apps/discovery/src/indexing/agent-index.repository.js';
import { IndexMaintenanceService } from '../apps/discovery/src/indexing/index-maintenance.service.js';
import {
  sampleCard,
  SAMPLE_AGENTS,
  watchIndexed,
  type SampleAgent,
} from '../apps/discovery/src/testing/agent-cards.factory.js';

const OWNER = 'discovery-e2e-owner';

function registration(agent: SampleAgent): RegisterAgentV1Request {
  const { name, description, skills } = SAMPLE_AGENTS[agent];
  return {
    name,
    description,
    skills,
    owner: OWNER,
    endpoint: { kind: 'nats' },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    version: '1.0.0',
    metadata: {},
  };
}

/**
 * The real pair: agents register with the registry over NATS, the registry publishes its events, discovery
 * indexes them and answers searches. Discovery starts first, so it also proves it waits for a registry that is
 * not up yet.
 */
describe('registry → discovery, end to end', () => {
  let infrastructure: TestInfrastructure;
  let discovery: INestMicroservice;
  let registry: INestMicroservice;
  let client: ContractClient;
  let external: NatsConnection;
  let indexed: Awaited<ReturnType<typeof watchIndexed>>;
  const cards = {} as Record<SampleAgent, AgentCardV1>;

  const search = async (request: Record<string, unknown>): Promise<SearchAgentsV1Response> => {
    const reply = await rawRequest(external, SearchAgentsV1.subject, request);
    if (!reply.ok) throw new Error(`search failed: ${JSON.stringify(reply.error)}`);
    return reply.data as SearchAgentsV1Response;
  };

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({ OPENAI_BASE_URL: '', OPENAI_API_KEY: '', EMBEDDING_DIMENSIONS: '' });
    external = await connectRaw(infrastructure.natsUrl);
    indexed = await watchIndexed(external);
    discovery = await createService(DiscoveryModule, { name: 'discovery', logger: false });
    registry = await createService(RegistryModule, { name: 'registry', logger: false });
    client = registry.get(ContractClient);
    await discovery.get(IndexMaintenanceService).whenReconciled();

    for (const agent of Object.keys(SAMPLE_AGENTS) as SampleAgent[]) {
      cards[agent] = (await client.request(RegisterAgentV1, registration(agent))).agent;
    }
    await Promise.all(Object.values(cards).map((card) => indexed.waitFor(card.id, card.revision)));
  });

  afterAll(async () => {
    indexed?.stop();
    await external?.close();
    await discovery?.close();
    await registry?.close();
    await infrastructure?.stop();
  });

  it('finds registered agents by what they can do, the matching one first', async () => {
    const cases: Array<[string, SampleAgent]> = [
      ['translate my contract into French', 'translator'],
      ['check this Python pull request for bugs', 'reviewer'],
      ['prepare the VAT tax return', 'accountant'],
      ['plan a trip to Rome with hotels', 'travel'],
    ];
    for (const [query, agent] of cases) {
      const response = await search({ queries: [query] });
      expect({ query, first: response.matches[0]?.agent.name }).toEqual({ query, first: cards[agent].name });
      expect(response.matches[0].agent).toEqual(cards[agent]);
    }
  });

  it('re-indexes a card updated through the registry, and a re-registration by the same owner', async () => {
    const chef = cards.chef;
    const updated = await client.request(UpdateAgentV1, {
      id: chef.id,
      owner: OWNER,
      skills: [
        {
          id: 'bake-bread',
          name: 'Sourdough baking',
          description: 'Bake sourdough bread and pastries, and rescue a sourdough starter.',
          tags: ['baking', 'bread'],
          examples: ['My sourdough starter smells odd, what now?'],
        },
      ],
    });
    expect(updated.revision).toBe(chef.revision + 1);
    await indexed.waitFor(chef.id, updated.revision);
    expect((await search({ queries: ['bake sourdough bread'] })).matches[0].agent).toMatchObject({
      id: chef.id,
      revision: updated.revision,
    });
    expect((await search({ queries: ['bread'], tags: ['baking'] })).matches.map((match) => match.agent.id)).toEqual([
      chef.id,
    ]);

    const again = await client.request(RegisterAgentV1, {
      ...registration('chef'),
      description: 'Now a vegan pastry chef: cakes without eggs or butter.',
    });
    expect(again.created).toBe(false);
    await indexed.waitFor(chef.id, again.agent.revision);
    const response = await search({ queries: ['vegan cakes without eggs'] });
    expect(response.matches[0].agent).toMatchObject({ id: chef.id, revision: again.agent.revision });
    cards.chef = again.agent;
  });

  it('removes a deregistered agent from search results', async () => {
    const recruiter = cards.recruiter;
    await client.request(DeregisterAgentV1, { id: recruiter.id, owner: OWNER });
    // Deregistration is the agent's newest change: its event carries the revision after the card's.
    await indexed.waitFor(recruiter.id, recruiter.revision + 1, false);
    const response = await search({ queries: ['screen resumes for the job opening'], minScore: -1, topK: 100 });
    expect(response.matches.map((match) => match.agent.id)).not.toContain(recruiter.id);
  });

  it('repairs a wrong index on restart by reconciling with the registry', async () => {
    // Damage the index behind discovery's back: lose one agent (as if its event never arrived) and add a ghost.
    const dataSource = discovery.get(DataSource);
    await dataSource.query(`DELETE FROM "discovery"."agent_index" WHERE "agent_id" = $1`, [cards.forecaster.id]);
    const ghost = sampleCard('forecaster', { name: 'ghost-forecaster' });
    await discovery.get(AgentIndexRepository).upsert({
      card: ghost,
      skillTags: ['weather'],
      embedding: new Array<number>(384).fill(0.05),
      model: 'local-hash-v1',
      dimension: 384,
    });
    await discovery.close();

    discovery = await createService(DiscoveryModule, { name: 'discovery', logger: false });
    await discovery.get(IndexMaintenanceService).whenReconciled();

    const repository = discovery.get(AgentIndexRepository);
    expect(await repository.find(ghost.id)).toBeUndefined();
    expect(await repository.find(cards.forecaster.id)).toMatchObject({ revision: cards.forecaster.revision });
    const ids = (await repository.findAll()).map((row) => row.agentId).sort();
    const expected = Object.values(cards)
      .filter((card) => card.id !== cards.recruiter.id)
      .map((card) => card.id)
      .sort();
    expect(ids).toEqual(expected);
    expect((await search({ queries: ['will it rain tomorrow in Berlin'] })).matches[0].agent.id).toBe(
      cards.forecaster.id,
    );
  });
});
