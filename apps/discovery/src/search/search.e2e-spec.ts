import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
  DiscoveryHealthV1,
  SearchAgentsV1,
  type AgentCardV1,
  type SearchAgentsV1Request,
  type SearchAgentsV1Response,
} from '@ioa/contracts';
import { ContractClient, createService, EventBus } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { DiscoveryModule } from '../discovery.module.js';
import { AgentIndexRepository } from '../indexing/agent-index.repository.js';
import { SAMPLE_AGENTS, sampleCard, watchIndexed, type SampleAgent } from '../testing/agent-cards.factory.js';
import { serveRegistryStandIn } from '../testing/registry-stand-in.js';

/**
 * Discovery on its own, fed with registry events published straight onto the registry's JetStream stream (no
 * registry process: discovery must also keep serving while the registry is down). Discovery reads each card back
 * from the registry before it believes an event, so the test plays the registry's `ioa.registry.agent.get.v1` too,
 * from `registry`: what the registry holds now.
 */
describe('discovery search over registry events', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let events: EventBus;
  let client: ContractClient;
  let external: NatsConnection;
  let indexed: Awaited<ReturnType<typeof watchIndexed>>;
  const cards = {} as Record<SampleAgent, AgentCardV1>;

  const search = (request: Partial<SearchAgentsV1Request> & { queries: string[] }): Promise<SearchAgentsV1Response> =>
    client.request(SearchAgentsV1, request as SearchAgentsV1Request);
  const names = (response: SearchAgentsV1Response) => response.matches.map((match) => match.agent.name);

  /** The registry's cards, as `ioa.registry.agent.get.v1` answers. */
  let registry: Map<string, AgentCardV1>;

  /** The registry stores the card (unless it has a later revision) and publishes its event. */
  async function publishCard(card: AgentCardV1, contract = AgentRegisteredV1): Promise<void> {
    if ((registry.get(card.id)?.revision ?? 0) <= card.revision) registry.set(card.id, card);
    await replayCard(card, contract);
  }

  /** An event published again (a replay or a late copy): the registry's state does not change. */
  async function replayCard(card: AgentCardV1, contract = AgentRegisteredV1): Promise<void> {
    await events.publish(contract, { agent: card }, { messageId: `${card.id}:${card.registeredAt}:${card.revision}` });
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment();
    service = await createService(DiscoveryModule, { name: 'discovery', logger: false });
    events = service.get(EventBus);
    client = service.get(ContractClient);
    external = await connectRaw(infrastructure.natsUrl);
    registry = serveRegistryStandIn(external).cards;
    indexed = await watchIndexed(external);
    for (const agent of Object.keys(SAMPLE_AGENTS) as SampleAgent[]) {
      cards[agent] = sampleCard(agent);
      await publishCard(cards[agent]);
    }
    await Promise.all(Object.values(cards).map((card) => indexed.waitFor(card.id, 1)));
  });

  afterAll(async () => {
    indexed?.stop();
    await external?.close();
    await service?.close();
    await infrastructure?.stop();
  });

  it.each([
    ['translate this letter into Spanish', 'translator'],
    ['review the pull request for my TypeScript service', 'reviewer'],
    ['will it rain in Hamburg tomorrow', 'forecaster'],
    ['reconcile invoices against the bank statement', 'accountant'],
    ['dinner recipe with eggs and spinach', 'chef'],
    ['book a flight to Oslo and a hotel', 'travel'],
    ['SQL query for revenue per month', 'analyst'],
    ['screen resumes of candidates for a job opening', 'recruiter'],
  ] as Array<[string, SampleAgent]>)('ranks the agent whose skills match "%s" first (%s)', async (query, agent) => {
    const response = await search({ queries: [query] });
    expect(response.matches[0]?.agent.id).toBe(cards[agent].id);
    expect(response.matches[0].matchedQuery).toBe(query);
    expect(response.model).toBe('local-hash-v1');
    const scores = response.matches.map((match) => match.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('merges several queries, listing an agent found by more than one once, with its best score', async () => {
    const response = await search({
      queries: ['translate a document into German', 'translation from French to English', 'book a flight'],
      minScore: 0.1,
    });
    const ids = response.matches.map((match) => match.agent.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([cards.translator.id, cards.travel.id]));

    const single = await Promise.all(
      ['translate a document into German', 'translation from French to English'].map((query) =>
        search({ queries: [query] }),
      ),
    );
    const best = Math.max(
      ...single.map((result) => result.matches.find((match) => match.agent.id === cards.translator.id)!.score),
    );
    expect(response.matches.find((match) => match.agent.id === cards.translator.id)!.score).toBeCloseTo(best, 6);
  });

  it('returns at most topK matches', async () => {
    expect((await search({ queries: ['data'], topK: 3, minScore: -1 })).matches).toHaveLength(3);
    expect((await search({ queries: ['data'], topK: 100, minScore: -1 })).matches).toHaveLength(8);
  });

  it('drops matches scoring below minScore', async () => {
    const all = await search({ queries: ['weather forecast for Paris'], minScore: -1 });
    const threshold = all.matches[1].score + 1e-6;
    const filtered = await search({ queries: ['weather forecast for Paris'], minScore: threshold });
    expect(filtered.matches.map((match) => match.agent.id)).toEqual([cards.forecaster.id]);
    expect((await search({ queries: ['weather forecast for Paris'], minScore: 1 })).matches).toEqual([]);
  });

  it('keeps only agents with one of the given skill tags, case-insensitively', async () => {
    const response = await search({ queries: ['help with my data'], tags: ['FINANCE', 'hiring'], minScore: -1 });
    expect(new Set(names(response))).toEqual(new Set([cards.accountant.name, cards.recruiter.name]));
  });

  it('leaves out excluded ids', async () => {
    const response = await search({
      queries: ['translate this letter into Spanish'],
      excludeIds: [cards.translator.id],
      minScore: -1,
    });
    expect(response.matches.map((match) => match.agent.id)).not.toContain(cards.translator.id);
    expect(response.matches).toHaveLength(7);
  });

  it('hides offline agents unless onlineOnly is false, and shows them again when they come back', async () => {
    const chef = cards.chef;
    const query = { queries: ['recipe with eggs and spinach'] };
    const offlineAt = new Date().toISOString();
    registry.set(chef.id, { ...chef, status: 'offline', lastSeenAt: offlineAt });
    await events.publish(AgentWentOfflineV1, {
      agentId: chef.id,
      name: chef.name,
      status: 'offline',
      lastSeenAt: offlineAt,
    });
    await expectSearch(query, (response) => !response.matches.some((match) => match.agent.id === chef.id));
    const withOffline = await search({ ...query, onlineOnly: false });
    expect(withOffline.matches[0].agent).toMatchObject({ id: chef.id, status: 'offline' });

    const onlineAt = new Date(Date.now() + 1000).toISOString();
    registry.set(chef.id, { ...chef, status: 'online', lastSeenAt: onlineAt });
    await events.publish(AgentCameOnlineV1, {
      agentId: chef.id,
      name: chef.name,
      status: 'online',
      lastSeenAt: onlineAt,
    });
    await expectSearch(query, (response) => response.matches[0]?.agent.id === chef.id);
  });

  it('re-embeds updated cards and ignores events older than the stored revision', async () => {
    const agent = sampleCard('recruiter');
    await publishCard(agent);
    await indexed.waitFor(agent.id, 1);
    const revision3 = { ...agent, revision: 3, description: 'Plays chess and explains chess openings.' };
    revision3.skills = [
      {
        id: 'chess',
        name: 'Chess coaching',
        description: 'Explain chess openings and endgames.',
        tags: ['chess'],
        examples: [],
      },
    ];
    await publishCard(revision3, AgentUpdatedV1);
    await indexed.waitFor(agent.id, 3);

    const stale = { ...agent, revision: 2, description: 'Bakes sourdough bread.' };
    await publishCard(stale, AgentUpdatedV1);
    // Events are handled in stream order: once a later event is indexed, the stale one has been seen.
    const marker = sampleCard('chef');
    await publishCard(marker);
    await indexed.waitFor(marker.id, 1);

    expect(indexed.events.some((event) => event.agentId === agent.id && event.revision === 2)).toBe(false);
    const stored = await service.get(AgentIndexRepository).find(agent.id);
    expect(stored).toMatchObject({ revision: 3, card: { description: revision3.description } });
    const response = await search({ queries: ['chess openings coach'] });
    expect(response.matches[0].agent.id).toBe(agent.id);
  });

  it('removes deregistered agents, and a late registration cannot bring them back', async () => {
    const agent = sampleCard('travel', { name: 'ephemeral-travel-agent' });
    await publishCard(agent);
    await indexed.waitFor(agent.id, 1);
    registry.delete(agent.id);
    await events.publish(AgentDeregisteredV1, { agentId: agent.id, name: agent.name, revision: 1 });
    await indexed.waitFor(agent.id, 1, false);

    const response = await search({ queries: ['book a flight from Lisbon to Oslo'], minScore: -1, topK: 100 });
    expect(response.matches.map((match) => match.agent.id)).not.toContain(agent.id);
    await replayCard({ ...agent }, AgentRegisteredV1); // same revision: a replay
    const marker = sampleCard('chef');
    await publishCard(marker);
    await indexed.waitFor(marker.id, 1);
    expect(await service.get(AgentIndexRepository).find(agent.id)).toBeUndefined();
  });

  it('ignores registry events the registry contradicts: an agent it does not have, a removal of one it has', async () => {
    const forged = sampleCard('travel', { name: 'forged-travel-agent' });
    await replayCard(forged); // never registered
    const kept = cards.translator;
    await events.publish(AgentDeregisteredV1, { agentId: kept.id, name: kept.name, revision: kept.revision });
    const marker = sampleCard('chef', { name: 'marker-after-forgeries' });
    await publishCard(marker);
    await indexed.waitFor(marker.id, 1);
    const repository = service.get(AgentIndexRepository);
    expect(await repository.find(forged.id)).toBeUndefined();
    expect(await repository.find(kept.id)).toMatchObject({ revision: kept.revision });
  });

  it('indexes an agent registered again under the same id after it left (an identity keeps its id)', async () => {
    const first = sampleCard('travel', { name: 'returning-travel-agent' });
    await publishCard(first);
    await indexed.waitFor(first.id, 1);
    registry.delete(first.id);
    await events.publish(AgentDeregisteredV1, { agentId: first.id, name: first.name, revision: 3 });
    await indexed.waitFor(first.id, 3, false);
    // Its next incarnation starts again at revision 1, below the removal's tombstone.
    const again = {
      ...first,
      revision: 1,
      registeredAt: new Date(Date.parse(first.registeredAt) + 60_000).toISOString(),
      description: 'Plans train journeys across Europe.',
    };
    await publishCard(again);
    await expectEventually(
      async () => (await service.get(AgentIndexRepository).find(first.id))?.card.description === again.description,
      { message: 'the new incarnation is indexed' },
    );
  });

  it('answers malformed search payloads with structured errors and keeps serving', async () => {
    const malformed = await rawRequest(external, SearchAgentsV1.subject, '{"queries": [');
    expect(malformed).toMatchObject({ ok: false, error: { code: 'MALFORMED_PAYLOAD', retryable: false } });

    const cases: Array<[unknown, string]> = [
      [{}, 'queries'],
      [{ queries: [] }, 'queries'],
      [{ queries: ['x'.repeat(1001)] }, 'queries'],
      [{ queries: ['ok'], topK: 0 }, 'topK'],
      [{ queries: ['ok'], topK: 'ten' }, 'topK'],
      [{ queries: ['ok'], minScore: 2 }, 'minScore'],
      [{ queries: ['ok'], onlineOnly: 'yes' }, 'onlineOnly'],
      [{ queries: ['ok'], tags: 'finance' }, 'tags'],
      [{ queries: ['ok'], excludeIds: ['not-a-uuid'] }, 'excludeIds'],
    ];
    for (const [body, property] of cases) {
      const reply = await rawRequest(external, SearchAgentsV1.subject, body);
      expect(reply.ok).toBe(false);
      expect(reply.error?.code).toBe('VALIDATION_FAILED');
      expect(reply.error?.details).toEqual(expect.arrayContaining([expect.objectContaining({ property })]));
    }
    const blank = await rawRequest(external, SearchAgentsV1.subject, { queries: ['   '] });
    expect(blank.error?.code).toBe('VALIDATION_FAILED');

    const stillUp = await rawRequest(external, SearchAgentsV1.subject, { queries: ['weather forecast'] });
    expect(stillUp.ok).toBe(true);
    expect(await rawRequest(external, DiscoveryHealthV1.subject, {})).toMatchObject({
      ok: true,
      data: { service: 'discovery', status: 'ok', database: 'up' },
    });
  });

  it('finds nothing for a query of stop words only, instead of failing', async () => {
    const response = await search({ queries: ['please help me with this'] });
    expect(response.matches).toEqual([]);
  });

  async function expectSearch(
    request: Partial<SearchAgentsV1Request> & { queries: string[] },
    condition: (response: SearchAgentsV1Response) => boolean,
  ): Promise<void> {
    await expectEventually(async () => condition(await search(request)), { message: 'search never matched' });
  }
});
