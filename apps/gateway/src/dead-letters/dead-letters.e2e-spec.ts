import {
  Injectable,
  Module,
  type INestApplication,
  type INestMicroservice,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import {
  AgentHostHealthV1,
  AgentWentOfflineV1,
  ChatHealthV1,
  DiscoveryHealthV1,
  RegistryHealthV1,
  SchedulerHealthV1,
  type AgentPresenceChangedV1Event,
} from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule } from '@ioa/database';
import { createService, EventBus, HealthModule, MessagingModule, on } from '@ioa/messaging';
import {
  adminAuthHeaders,
  connectRaw,
  expectEventually,
  startTestInfrastructure,
  type TestInfrastructure,
} from '@ioa/testing';
import { createGatewayApp } from '../gateway.app.js';
import type { DeadLetterDto, DeadLetterListDto } from './dead-letters.dto.js';

const CONSUMER = 'chat-registry-agent-went-offline-v1';

/** What the stand-in chat's consumer saw, and the switches that make it fail or hang. */
const probe = {
  handled: [] as string[],
  poison: new Set<string>(),
  hangOn: undefined as string | undefined,
  gate: undefined as Promise<void> | undefined,
};

@Injectable()
class ProbeConsumer implements OnApplicationBootstrap {
  constructor(private readonly events: EventBus) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.events.subscribe({
      durable: 'chat',
      handlers: [
        on(AgentWentOfflineV1, async (event) => {
          if (probe.poison.has(event.name)) throw new Error(`no group for ${event.name}`);
          if (event.name === probe.hangOn) await probe.gate;
          probe.handled.push(event.name);
        }),
      ],
    });
  }
}

/**
 * One process answering every service's health and dead-letter subjects (with a real database behind them), whose
 * "chat" consumes a stream: enough for the gateway's fan-out to see five services and one stream consumer.
 */
@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('chat'),
    DatabaseModule.forService({ schema: 'probe', entities: [], migrations: [] }),
    HealthModule.forService(RegistryHealthV1),
    HealthModule.forService(DiscoveryHealthV1),
    HealthModule.forService(ChatHealthV1),
    HealthModule.forService(SchedulerHealthV1),
    HealthModule.forService(AgentHostHealthV1),
  ],
  providers: [ProbeConsumer],
})
class PlatformStandInModule {}

function presence(name: string): AgentPresenceChangedV1Event {
  return { agentId: randomUUID(), name, status: 'offline', lastSeenAt: new Date().toISOString() };
}

describe('dead letters and consumer health over HTTP', () => {
  let infrastructure: TestInfrastructure;
  let services: INestMicroservice;
  let gateway: INestApplication;
  let external: NatsConnection;
  let baseUrl: string;

  async function http<T>(method: 'GET' | 'POST', path: string): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, { method, headers: adminAuthHeaders() });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function publish(event: AgentPresenceChangedV1Event): Promise<number> {
    return (await jetstream(external).publish(AgentWentOfflineV1.subject, JSON.stringify(event))).seq;
  }

  async function deadLetterOf(sequence: number): Promise<DeadLetterDto> {
    return expectEventually(async () => {
      const { status, body } = await http<DeadLetterListDto>('GET', '/v1/dead-letters?service=chat');
      const letter = body.items.find((candidate) => candidate.streamSequence === sequence);
      if (status !== 200 || !letter) throw new Error(`event ${sequence} is not listed (${status})`);
      return letter;
    });
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      EVENT_RETRY_BACKOFF_MS: '50',
      EVENT_MAX_DELIVERIES: '2',
      EVENT_STUCK_AFTER_MS: '1000',
    });
    services = await createService(PlatformStandInModule, { name: 'chat', logger: false });
    gateway = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    baseUrl = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    external = await connectRaw(infrastructure.natsUrl);
  });

  afterAll(async () => {
    await external?.close();
    await gateway?.close();
    await services?.close();
    await infrastructure?.stop();
  });

  it('lists a poison event with its error and consumer, and replays it once the cause is fixed', async () => {
    probe.poison.add('poison');
    const sequence = await publish(presence('poison'));
    const letter = await deadLetterOf(sequence);
    expect(letter).toMatchObject({
      service: 'chat',
      consumer: CONSUMER,
      subject: AgentWentOfflineV1.subject,
      deliveries: 2,
      reason: 'handler_failed',
      error: 'no group for poison',
    });

    const all = await http<DeadLetterListDto>('GET', '/v1/dead-letters');
    expect(all.status).toBe(200);
    expect(all.body.unavailable).toEqual([]);
    expect(all.body.items.map((item) => item.id)).toContain(letter.id);

    probe.poison.delete('poison');
    const replay = await http<Record<string, unknown>>('POST', `/v1/dead-letters/${letter.id}/replay`);
    expect(replay).toEqual({
      status: 200,
      body: {
        id: letter.id,
        service: 'chat',
        subject: AgentWentOfflineV1.subject,
        messageId: `dead-letter-replay:${letter.id}`,
      },
    });
    await expectEventually(() => probe.handled.includes('poison'));

    const again = await http<Record<string, unknown>>('POST', `/v1/dead-letters/${letter.id}/replay`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ error: 'NOT_FOUND' });
  });

  it.each([
    ['/v1/dead-letters?limit=0', 'limit'],
    ['/v1/dead-letters?afterId=-1', 'afterId'],
    ['/v1/dead-letters?service=billing', 'service'],
  ])('rejects GET %s with 400 naming %s', async (path, property) => {
    const { status, body } = await http<{ error: string; details: Array<{ property: string }> }>('GET', path);
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.details.map((detail) => detail.property)).toContain(property);
  });

  it('rejects a replay id that is not a positive integer with 400', async () => {
    const { status, body } = await http<{ error: string }>('POST', '/v1/dead-letters/abc/replay');
    expect(status).toBe(400);
    expect(body.error).toBe('VALIDATION_FAILED');
  });

  it('shows each consumer in /health, and is not ok while one is stuck', async () => {
    type Health = {
      status: string;
      services: { chat: { consumers?: Array<{ name: string; stuck: boolean; deadLetters: number; pending: number }> } };
    };
    const healthy = await expectEventually(async () => {
      const answer = await http<Health>('GET', '/health');
      if (answer.status !== 200) throw new Error(`health is ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    });
    expect(healthy.services.chat.consumers).toEqual([
      expect.objectContaining({ name: CONSUMER, stuck: false, deadLetters: expect.any(Number) as number }),
    ]);

    let open!: () => void;
    probe.gate = new Promise((resolve) => (open = resolve));
    probe.hangOn = 'hang';
    await publish(presence('hang'));
    await Promise.all(Array.from({ length: 40 }, (_, index) => publish(presence(`queued-${index}`))));

    const stuck = await expectEventually(async () => {
      const answer = await http<Health>('GET', '/health');
      if (answer.status !== 503) throw new Error(`health is still ${answer.status}`);
      return answer.body;
    });
    expect(stuck.status).toBe('degraded');
    expect(stuck.services.chat.consumers?.[0]).toMatchObject({ name: CONSUMER, stuck: true });
    // The gateway still serves: readiness is not taken away by a stuck consumer elsewhere.
    const ready = await http<{ ready: boolean }>('GET', '/health/ready');
    expect(ready).toMatchObject({ status: 200, body: { ready: true } });

    open();
    await expectEventually(() => probe.handled.includes('queued-39'));
    await expectEventually(async () => (await http<Health>('GET', '/health')).status === 200);
  });

  it('documents the routes in OpenAPI', async () => {
    const { body } = await http<{ paths: Record<string, Record<string, unknown>> }>('GET', '/docs-json');
    expect(Object.keys(body.paths['/v1/dead-letters'] ?? {})).toContain('get');
    expect(Object.keys(body.paths['/v1/dead-letters/{id}/replay'] ?? {})).toContain('post');
  });
});
