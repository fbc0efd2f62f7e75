import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { AgentRegisteredV1, SearchAgentsV1, type AgentCardV1 } from '@ioa/contracts';
import { createService, EventBus } from '@ioa/messaging';
import {
  connectRaw,
  expectEventually,
  rawRequest,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { DiscoveryModule } from '../discovery.module.js';
import { AgentIndexRepository } from '../indexing/agent-index.repository.js';
import { IndexMaintenanceService } from '../indexing/index-maintenance.service.js';
import { sampleCard, watchIndexed } from '../testing/agent-cards.factory.js';
import { serveRegistryStandIn } from '../testing/registry-stand-in.js';
import { startOpenAiFake, type OpenAiFake } from '../testing/openai-fake.server.js';
import { createEmbedder } from './embedding.module.js';
import { cosineSimilarity, LocalHashEmbedder, OpenAiEmbedder } from '@ioa/embeddings';

const API_KEY = 'sk-test-discovery';

describe('OpenAiEmbedder against a local OpenAI-compatible endpoint', () => {
  let fake: OpenAiFake;

  beforeAll(async () => {
    fake = await startOpenAiFake({ apiKey: API_KEY });
  });

  afterEach(() => {
    fake.recover();
    fake.overrideDimension(undefined);
    fake.requests.length = 0;
  });

  afterAll(async () => {
    await fake?.stop();
  });

  const embedder = (overrides: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
    new OpenAiEmbedder({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      model: 'text-embedding-3-small',
      dimensions: 64,
      timeoutMs: 5000,
      maxRetries: 0,
      ...overrides,
    });

  it('embeds a batch in input order as unit vectors, sending the model, the dimensions and the key', async () => {
    const texts = ['translate documents into German', 'forecast the weather in Oslo', 'review a pull request'];
    const vectors = await embedder().embed(texts);

    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toHaveLength(64);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    }
    // The fake answers in reverse order; the client must restore the input order from `index`.
    const local = new LocalHashEmbedder(64);
    texts.forEach((text, i) => expect(cosineSimilarity(vectors[i], local.embedOne(text))).toBeCloseTo(1, 5));
    expect(fake.requests).toEqual([
      {
        authorization: `Bearer ${API_KEY}`,
        body: { model: 'text-embedding-3-small', input: texts, dimensions: 64, encoding_format: 'float' },
      },
    ]);
  });

  it('splits large inputs into batches', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `agent number ${i} translates letters`);
    const vectors = await embedder().embed(texts);
    expect(vectors).toHaveLength(300);
    expect(fake.requests.map((request) => (request.body.input as string[]).length)).toEqual([256, 44]);
  });

  it("uses a known model's native size without sending `dimensions`", async () => {
    const native = embedder({ dimensions: undefined });
    expect(native.dimension).toBe(1536);
    const [vector] = await native.embed(['hello world']);
    expect(vector).toHaveLength(1536);
    expect(fake.requests[0].body).not.toHaveProperty('dimensions');
  });

  it('refuses a model of unknown size when no dimensions are configured', () => {
    expect(() => embedder({ model: 'my-custom-embedder', dimensions: undefined })).toThrow(/EMBEDDING_DIMENSIONS/);
  });

  it("fails with the endpoint's status and message on an error response", async () => {
    fake.fail(503, 'The engine is currently overloaded');
    await expect(embedder().embed(['anything'])).rejects.toThrow(/503.*overloaded/);
    fake.recover();
    await expect(embedder().embed(['anything'])).resolves.toHaveLength(1);
  });

  it('fails on a wrong API key', async () => {
    await expect(embedder({ apiKey: 'wrong' }).embed(['anything'])).rejects.toThrow(/401/);
  });

  it('rejects vectors whose size differs from the configured dimension', async () => {
    fake.overrideDimension(32);
    await expect(embedder().embed(['anything'])).rejects.toThrow(/32 dimensions, expected 64/);
  });

  it('is chosen when an endpoint or a key is configured, the local embedder otherwise', () => {
    const base = { model: undefined, dimensions: undefined, timeoutMs: 1000, maxRetries: 0 };
    expect(createEmbedder({ ...base, provider: 'local', baseUrl: undefined, apiKey: undefined })).toBeInstanceOf(
      LocalHashEmbedder,
    );
    expect(createEmbedder({ ...base, provider: 'openai', baseUrl: fake.baseUrl, apiKey: undefined })).toBeInstanceOf(
      OpenAiEmbedder,
    );
    expect(() =>
      createEmbedder({
        ...base,
        provider: 'openai',
        baseUrl: fake.baseUrl,
        apiKey: undefined,
        model: 'text-embedding-3-large',
      }),
    ).toThrow(/at most 2000/);
  });
});

describe('discovery switching from the local embedder to an OpenAI-compatible endpoint', () => {
  let infrastructure: TestInfrastructure;
  let fake: OpenAiFake;
  let service: INestMicroservice | undefined;
  let external: NatsConnection;
  let indexed: Awaited<ReturnType<typeof watchIndexed>>;
  const cards: AgentCardV1[] = [sampleCard('translator'), sampleCard('forecaster'), sampleCard('chef')];
  const late = sampleCard('reviewer');
  let registry: Map<string, AgentCardV1>;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    fake = await startOpenAiFake({ apiKey: API_KEY });
    external = await connectRaw(infrastructure.natsUrl);
    // The registry holds these cards (discovery reads each back before indexing it).
    registry = serveRegistryStandIn(external).cards;
    for (const card of [...cards, late]) registry.set(card.id, card);
    indexed = await watchIndexed(external);
  });

  afterAll(async () => {
    indexed?.stop();
    await external?.close();
    await service?.close();
    await fake?.stop();
    await infrastructure?.stop();
  });

  async function boot(environment: Record<string, string>): Promise<INestMicroservice> {
    infrastructure.applyEnvironment({
      OPENAI_BASE_URL: '',
      OPENAI_API_KEY: '',
      EMBEDDING_MODEL: '',
      EMBEDDING_DIMENSIONS: '',
      EMBEDDING_MAX_RETRIES: '0',
      ...environment,
    });
    return createService(DiscoveryModule, { name: 'discovery', logger: false });
  }

  it('indexes with the local embedder, then re-embeds everything at the new model and dimension on restart', async () => {
    service = await boot({});
    for (const card of cards) await service.get(EventBus).publish(AgentRegisteredV1, { agent: card });
    await Promise.all(cards.map((card) => indexed.waitFor(card.id, 1)));
    expect((await service.get(AgentIndexRepository).findAll()).map((row) => row.model)).toEqual(
      cards.map(() => 'local-hash-v1'),
    );
    await service.close();

    service = await boot({ OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: API_KEY, EMBEDDING_DIMENSIONS: '64' });
    await service.get(IndexMaintenanceService).whenReembedded();

    const repository = service.get(AgentIndexRepository);
    const rows = await repository.findAll();
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.model === 'text-embedding-3-small' && row.dimension === 64)).toBe(true);
    const indexes = await repository.indexNames();
    expect(indexes).toContain('agent_index_embedding_64_hnsw');
    expect(indexes).not.toContain('agent_index_embedding_384_hnsw');
    expect(fake.requests.length).toBeGreaterThan(0);

    const reply = await rawRequest(external, SearchAgentsV1.subject, { queries: ['weather forecast for Oslo'] });
    expect(reply).toMatchObject({ ok: true, data: { model: 'text-embedding-3-small' } });
    expect((reply.data as { matches: Array<{ agent: { id: string } }> }).matches[0].agent.id).toBe(cards[1].id);
  });

  it('answers UNAVAILABLE while the endpoint fails, keeps serving, and indexes postponed events once it is back', async () => {
    fake.fail(500);
    const reply = await rawRequest(external, SearchAgentsV1.subject, { queries: ['weather forecast'] });
    expect(reply).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', retryable: true } });
    expect(reply.error?.message).toMatch(/text-embedding-3-small.*500/);

    await service!.get(EventBus).publish(AgentRegisteredV1, { agent: late });
    // The event cannot be indexed while the endpoint fails; it is redelivered until it can.
    await expectEventually(() =>
      fake.requests.some((request) => JSON.stringify(request.body.input).includes(late.description)),
    );
    fake.recover();
    await indexed.waitFor(late.id, 1);

    const after = await rawRequest(external, SearchAgentsV1.subject, { queries: ['review my pull request'] });
    expect((after.data as { matches: Array<{ agent: { id: string } }> }).matches[0].agent.id).toBe(late.id);
  });
});
