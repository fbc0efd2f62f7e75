import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AssignTaskV1,
  ContractError,
  HEADER_IDEMPOTENCY_KEY,
  MAX_REPORTED_VIOLATIONS,
  subjectFor,
  TaskCanceledV1,
  type TaskAssignmentV1Request,
  type TaskCanceledV1Event,
} from '@ioa/contracts';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { connectRaw, expectEventually, rawRequest } from '@ioa/testing';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { ContractResponder, type ServedSubject } from './contract-responder.js';

function assignment(agentId: string, overrides: Partial<Record<keyof TaskAssignmentV1Request, unknown>> = {}) {
  return {
    taskId: randomUUID(),
    goalId: randomUUID(),
    groupId: randomUUID(),
    agentId,
    brief: briefNamed('Count to three'),
    deadline: new Date(Date.now() + 60_000).toISOString(),
    depth: 0,
    maxDepth: 1,
    attempt: 1,
    ...overrides,
  };
}

function briefNamed(abstract: string) {
  return { abstract, inputs: '', description: 'Count to three', completionCriteria: 'Three numbers' };
}

function nestedArrays(depth: number): string {
  return `{"brief": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

/** The receive path for subjects known only at run time, against a real nats-server and a bare NATS peer. */
describe('ContractResponder: one bounded receive path that never throws', () => {
  let nats: EmbeddedNats;
  let serviceConnection: NatsConnection;
  let peer: NatsConnection;
  let responder: ContractResponder;
  const agentId = randomUUID();
  const subject = subjectFor(AssignTaskV1, agentId);
  const served: ServedSubject[] = [];
  const received: Array<{ taskId: string; idempotencyKey?: string }> = [];
  const canceled: string[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    serviceConnection = await connectRaw(nats.url);
    peer = await connectRaw(nats.url);
    responder = new ContractResponder(serviceConnection);
    served.push(
      responder.serve(AssignTaskV1, subject, (request, message) => {
        if (request.brief.abstract === 'domain-error') throw new ContractError('INVALID_STATE', 'Not now');
        if (request.brief.abstract === 'bug') throw new Error('database password is hunter2');
        received.push({ taskId: request.taskId, idempotencyKey: message.header(HEADER_IDEMPOTENCY_KEY) });
        return { accepted: true };
      }),
      responder.listen(TaskCanceledV1, subjectFor(TaskCanceledV1, agentId), (event: TaskCanceledV1Event) => {
        if (event.reason === 'explode') throw new Error('handler bug');
        canceled.push(event.taskId);
      }),
    );
    await serviceConnection.flush();
  });

  afterAll(async () => {
    served.forEach((subscription) => subscription.unsubscribe());
    await peer?.close();
    await serviceConnection?.close();
    await nats?.stop();
  });

  const stillServing = async () => {
    const reply = await rawRequest(peer, subject, assignment(agentId));
    expect(reply).toEqual({ ok: true, data: { accepted: true } });
  };

  it('answers a valid request with the handler result and gives the handler the headers', async () => {
    const headers = natsHeaders();
    headers.set(HEADER_IDEMPOTENCY_KEY, 'key-1');
    const request = assignment(agentId);
    const reply = await peer.request(subject, JSON.stringify(request), { timeout: 5000, headers });
    expect(reply.json()).toEqual({ ok: true, data: { accepted: true } });
    expect(received).toContainEqual({ taskId: request.taskId, idempotencyKey: 'key-1' });
  });

  it('answers the ~20 KB {"brief": [1 × 10,000]} with a small VALIDATION_FAILED and keeps serving', async () => {
    const body = JSON.stringify({ brief: new Array(10_000).fill(1) });
    expect(body.length).toBeGreaterThan(19_000);
    const reply = await peer.request(subject, body, { timeout: 5000 });
    expect(reply.data.length).toBeLessThan(2_000);
    expect(reply.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', retryable: false } });
    await stillServing();
  });

  it('keeps a reply with many violations short: the first ones, then a count', async () => {
    const reply = await peer.request(subject, JSON.stringify({ brief: new Array(900).fill(1) }), { timeout: 5000 });
    const envelope = reply.json<{ error: { message: string; details: unknown[] } }>();
    expect(reply.data.length).toBeLessThan(5_000);
    expect(envelope.error.details).toHaveLength(MAX_REPORTED_VIOLATIONS);
    expect(envelope.error.message).toMatch(/more violations, \d+ in all/);
  });

  it.each([
    ['nesting 10,000 deep', 'VALIDATION_FAILED', nestedArrays(10_000)],
    ['nesting 5,000 deep', 'VALIDATION_FAILED', nestedArrays(5_000)],
    ['a NUL in a string', 'VALIDATION_FAILED', JSON.stringify(assignment(agentId, { deadline: 'x\u0000' }))],
    ['an unpaired surrogate', 'VALIDATION_FAILED', `{"taskId": "\\ud800"}`],
    ['1e308 for an integer', 'VALIDATION_FAILED', JSON.stringify(assignment(agentId, { depth: 1e308 }))],
    [
      'a 20-digit integer',
      'VALIDATION_FAILED',
      JSON.stringify(assignment(agentId)).replace('"attempt":1', '"attempt":12345678901234567890'),
    ],
    ['true for an integer', 'VALIDATION_FAILED', JSON.stringify(assignment(agentId, { maxDepth: true }))],
    ['null for a required object', 'VALIDATION_FAILED', JSON.stringify(assignment(agentId, { brief: null }))],
    ['no brief at all', 'VALIDATION_FAILED', JSON.stringify({ ...assignment(agentId), brief: undefined })],
    ['not JSON', 'MALFORMED_PAYLOAD', '{"taskId": nope'],
    ['a JSON array', 'VALIDATION_FAILED', '[1, 2, 3]'],
  ])('answers %s with %s and keeps serving', async (_name, code, body) => {
    const reply = await peer.request(subject, body, { timeout: 5000 });
    expect(reply.data.length).toBeLessThan(4_000);
    expect(reply.json()).toMatchObject({ ok: false, error: { code } });
    await stillServing();
  });

  it('passes domain errors through and masks bugs as INTERNAL', async () => {
    const domain = await rawRequest(peer, subject, assignment(agentId, { brief: briefNamed('domain-error') }));
    expect(domain.error).toMatchObject({ code: 'INVALID_STATE', message: 'Not now' });
    const bug = await rawRequest(peer, subject, assignment(agentId, { brief: briefNamed('bug') }));
    expect(bug.error).toEqual({ code: 'INTERNAL', message: 'Internal error', retryable: true });
    await stillServing();
  });

  it('ignores a request published without a reply subject, and survives events it cannot use', async () => {
    const unanswerable = assignment(agentId);
    peer.publish(subject, JSON.stringify(unanswerable));
    const canceledSubject = subjectFor(TaskCanceledV1, agentId);
    peer.publish(canceledSubject, '{"taskId": nope');
    peer.publish(canceledSubject, JSON.stringify({ taskId: randomUUID(), reason: 'explode' }));
    peer.publish(canceledSubject, JSON.stringify({ taskId: 'not-a-uuid', reason: 'x' }));
    const taskId = randomUUID();
    peer.publish(canceledSubject, JSON.stringify({ taskId, reason: 'goal canceled' }));
    await expectEventually(() => canceled.includes(taskId), { message: 'the valid cancellation is handled' });
    expect(canceled).toEqual([taskId]);
    expect(received.map((entry) => entry.taskId)).not.toContain(unanswerable.taskId);
    await stillServing();
  });

  it('refuses to serve a subject that is not the contract’s', () => {
    expect(() => responder.serve(AssignTaskV1, 'ioa.agent.x.other.v1', () => ({ accepted: true }))).toThrow(
      /is not a subject of ioa\.agent\.\*\.task\.v1/,
    );
  });
});
