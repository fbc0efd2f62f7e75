import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { INestMicroservice } from '@nestjs/common';
import { errors as natsErrors, type NatsConnection } from '@nats-io/transport-node';
import {
  ALL_CONTRACTS,
  ERROR_CODES,
  subjectFor,
  type AnyContract,
  type EventContract,
  type RequestContract,
} from '@ioa/contracts';
import { payloadSchemas } from '../../deploy/contract/contract-artefacts.js';
import { expectEventually, NatsPermissionProbe, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { AdaptersModule } from '../../apps/adapters/src/adapters.module.js';
import { GOAL_SERVICES, startServices } from '../support/platform-services.js';
import { hostileBody, payloadFor, toJsonText, type JsonSchema } from './hostile-payloads.js';

const SEED = 20_261_124;
const RUNS_PER_SUBJECT = 16;
const RUNS_PER_EVENT = 4;
const REPLY_TIMEOUT_MS = 5_000;
const HOSTILE_AGENT = 'hostile-agent';
const decoder = new TextDecoder();

interface Envelope {
  ok: boolean;
  error?: { code: string; message: string };
}

/**
 * The hostile-input suite with authentication on: the same kind of hostile payloads, sent by an authenticated agent
 * (which reaches only what its identity allows: its own `ioa.agent.<id>.…` subjects and the two read-only platform
 * questions) and by an anonymous connection (refused at the door). What the broker lets through is answered with a
 * structured reply in time; everything else is refused by the broker, and the services stay healthy.
 */
describe('hostile input with authentication on', () => {
  let infrastructure: TestInfrastructure;
  const services: INestMicroservice[] = [];
  let hostile: NatsConnection;
  let operator: NatsConnection;
  const definitions: Record<string, JsonSchema> = {};
  const counts = { answered: 0, refused: 0, notServed: 0, eventsRefused: 0 };

  function concreteSubject(contract: AnyContract): string | undefined {
    if (!contract.subject.includes('*')) return contract.subject;
    return contract.subject.startsWith('ioa.agent.*.') ? subjectFor(contract, HOSTILE_AGENT) : undefined;
  }

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure({ auth: true });
    infrastructure.applyEnvironment({ AGENT_HOST_HEARTBEAT_MS: '1000', ADAPTERS_CALLBACK_PORT: '0' });
    services.push(...(await startServices([...GOAL_SERVICES, [AdaptersModule, 'adapters']], ['fatal'])));
    hostile = await infrastructure.connectAsAgent(HOSTILE_AGENT);
    operator = await infrastructure.connectAsService('gateway');
    for (const [name, schema] of payloadSchemas(ALL_CONTRACTS, '#/$defs/')) definitions[name] = schema;
  }, 120_000);

  afterAll(async () => {
    process.stdout.write(
      `hostile-input (auth): ${counts.answered} requests answered, ${counts.refused} refused by the broker, ` +
        `${counts.notServed} not served, ${counts.eventsRefused} forged events refused\n`,
    );
    for (const service of services.reverse()) await service.close();
    await infrastructure?.stop();
  }, 60_000);

  it('refuses an anonymous peer before it can send anything', async () => {
    await expect(infrastructure.connectAnonymous()).rejects.toThrow(/Authorization/i);
  });

  it('answers what an authenticated agent may ask with a structured reply in time, and refuses the rest', async () => {
    const failures: string[] = [];
    const requests = ALL_CONTRACTS.filter(
      (contract): contract is RequestContract<unknown, unknown> => contract.kind === 'request',
    );
    for (const contract of requests) {
      const subject = concreteSubject(contract);
      if (!subject) continue;
      const schema = definitions[contract.request.name] ?? { type: 'object', properties: {} };
      for (const body of fc.sample(payloadFor(schema, definitions), { seed: SEED, numRuns: RUNS_PER_SUBJECT })) {
        try {
          const reply = await hostile.request(subject, toJsonText(body), { timeout: REPLY_TIMEOUT_MS });
          const envelope = JSON.parse(decoder.decode(reply.data)) as Envelope;
          counts.answered++;
          if (typeof envelope.ok !== 'boolean') failures.push(`${subject}: not an envelope`);
          else if (!envelope.ok && !(ERROR_CODES as readonly string[]).includes(envelope.error?.code ?? '')) {
            failures.push(`${subject}: unknown error code ${envelope.error?.code}`);
          } else if (!envelope.ok && envelope.error?.code === 'INTERNAL') {
            failures.push(`${subject}: INTERNAL ${envelope.error.message}`);
          }
        } catch (error) {
          const message = (error as Error).message;
          if (/Permissions Violation/.test(message)) {
            counts.refused++;
            break; // the broker refuses the subject whatever the body
          }
          if (error instanceof natsErrors.RequestError && error.isNoResponders()) {
            counts.notServed++;
            break;
          }
          failures.push(`${subject}: ${message}`);
          break;
        }
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    // The agent reaches at least the two platform questions it is allowed.
    expect(counts.answered).toBeGreaterThanOrEqual(2 * RUNS_PER_SUBJECT);
    expect(counts.refused).toBeGreaterThan(20);
  }, 240_000);

  it('refuses hostile bodies on every platform event subject, and the services stay healthy', async () => {
    const probe = new NatsPermissionProbe(hostile);
    const events = ALL_CONTRACTS.filter(
      (contract): contract is EventContract<unknown> => contract.kind === 'event' && contract.owner !== 'agent',
    );
    const allowed: string[] = [];
    for (const contract of events) {
      for (const body of fc.sample(hostileBody(), { seed: SEED, numRuns: RUNS_PER_EVENT })) {
        const outcome = await probe.publish(contract.subject, toJsonText(body));
        if (outcome === 'allowed') allowed.push(contract.subject);
        else counts.eventsRefused++;
      }
    }
    expect(allowed).toEqual([]);
    await expectEventually(
      async () => {
        for (const contract of ALL_CONTRACTS) {
          if (contract.kind !== 'request' || !contract.subject.endsWith('.health.v1')) continue;
          const reply = await operator.request(contract.subject, '{}', { timeout: REPLY_TIMEOUT_MS });
          const envelope = JSON.parse(decoder.decode(reply.data)) as Envelope;
          if (!envelope.ok) throw new Error(`${contract.subject}: ${envelope.error?.code}`);
        }
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: 'every service answers its health check' },
    );
  }, 120_000);
});
