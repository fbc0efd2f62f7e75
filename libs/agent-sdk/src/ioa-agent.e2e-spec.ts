import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AssignTaskV1, subjectFor, type TaskAssignmentV1Request } from '@ioa/contracts';
import { startNatsServer, type EmbeddedNats } from '@ioa/embedded';
import { expectEventually } from '@ioa/testing';
import { IoaAgent } from './ioa-agent.js';
import { decodeJson, encodeJson } from './nats-wire.js';
import { StandInPlatform } from './conformance/stand-in-platform.js';

/** A TTL long enough that no periodic heartbeat falls inside a test: every heartbeat seen has another cause. */
const LONG_TTL_SECONDS = 300;

const card = {
  name: 'sdk-probe',
  description: 'An agent that answers every task with the word done.',
  owner: 'sdk-tests',
  skills: [{ id: 'probe', name: 'Probe', description: 'Answers done.' }],
  endpoint: { kind: 'nats' as const },
};

function assignment(agentId: string): TaskAssignmentV1Request {
  return {
    taskId: randomUUID(),
    goalId: randomUUID(),
    groupId: randomUUID(),
    agentId,
    brief: { abstract: 'Probe.', inputs: '', description: 'Say done.', completionCriteria: 'The word done.' },
    deadline: new Date(Date.now() + 60_000).toISOString(),
    depth: 0,
    maxDepth: 1,
    attempt: 1,
  };
}

/**
 * IoaAgent's own behaviour on a real nats-server, with the conformance kit's stand-in platform answering the
 * registry and scheduler subjects: what the conformance rules do not cover.
 */
describe('IoaAgent', () => {
  let nats: EmbeddedNats | undefined;
  let peer: NatsConnection | undefined;
  let agent: IoaAgent | undefined;

  afterEach(async () => {
    await agent?.stop();
    await peer?.close();
    await nats?.stop();
  });

  async function start(port = 0): Promise<{ platform: StandInPlatform; url: string }> {
    nats = await startNatsServer({ port });
    peer = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const platform = new StandInPlatform(peer, LONG_TTL_SECONDS);
    await platform.open();
    return { platform, url: nats.url };
  }

  it('says it is alive at once after the broker restarts, and keeps serving tasks', async () => {
    const { platform, url } = await start();
    const port = nats!.port;
    let runs = 0;
    agent = await IoaAgent.start({
      servers: url,
      card,
      onTask: () => Promise.resolve(`done ${++runs}`),
    });
    expect(platform.of('heartbeat')).toEqual([]);

    const restartedAt = Date.now();
    await nats!.stop();
    nats = await startNatsServer({ port });
    // The heartbeat that follows the reconnect, long before the periodic one (TTL / 3 = 100 s away).
    await expectEventually(() => platform.of('heartbeat', restartedAt).length > 0, {
      timeoutMs: 20_000,
      message: 'a heartbeat right after the reconnect',
    });

    const task = assignment(agent.id);
    const reply = await peer!.request(subjectFor(AssignTaskV1, agent.id), encodeJson(task), { timeout: 5000 });
    expect(decodeJson(reply.data)).toEqual({ ok: true, data: { accepted: true } });
    await expectEventually(
      () =>
        platform.of('report').some((report) => report.body.taskId === task.taskId && report.body.state === 'completed'),
      { message: 'the task is reported completed' },
    );
  });

  it('acknowledges a re-delivered task again but runs it once', async () => {
    const { platform, url } = await start();
    let runs = 0;
    agent = await IoaAgent.start({ servers: url, card, onTask: () => Promise.resolve(`done ${++runs}`) });
    const task = assignment(agent.id);
    for (const attempt of [1, 2]) {
      const body = encodeJson({ ...task, attempt });
      const reply = await peer!.request(subjectFor(AssignTaskV1, agent.id), body, { timeout: 5000 });
      expect(decodeJson(reply.data)).toEqual({ ok: true, data: { accepted: true } });
    }
    await expectEventually(() => platform.of('report').some((report) => report.body.state === 'completed'));
    expect(runs).toBe(1);
    expect(platform.of('report').filter((report) => report.body.state === 'completed')).toHaveLength(1);
  });

  it('declines new tasks while it stops, and reports the one it could not finish as failed', async () => {
    const { platform, url } = await start();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    agent = await IoaAgent.start({
      servers: url,
      card,
      shutdownGraceMs: 300,
      onTask: (_task, context) => {
        started();
        return new Promise<string>((resolve) => context.signal.addEventListener('abort', () => resolve('too late')));
      },
    });
    const first = assignment(agent.id);
    await peer!.request(subjectFor(AssignTaskV1, agent.id), encodeJson(first), { timeout: 5000 });
    await running;
    const stopping = agent.stop();
    const second = assignment(agent.id);
    const reply = await peer!.request(subjectFor(AssignTaskV1, agent.id), encodeJson(second), { timeout: 5000 });
    expect(decodeJson(reply.data)).toEqual({
      ok: true,
      data: { accepted: false, reason: 'the agent is shutting down' },
    });
    await stopping;
    const reports = platform.of('report').map((report) => [report.body.taskId, report.body.state]);
    expect(reports).toEqual([[first.taskId, 'failed']]);
  });
});
