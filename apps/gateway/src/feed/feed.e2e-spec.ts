import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DeregisterAgentV1,
  ENDED_GOAL_STATUSES,
  RegisterAgentV1,
  type GoalStatusChangedV1Event,
  type RegisterAgentV1Response,
} from '@ioa/contracts';
import { adminAuthHeaders } from '@ioa/testing';
import { SseClient, type ReceivedSseEvent } from '../goals/testing/sse-client.js';
import { startGatewayOverPlatform, type GatewayOverPlatform } from '../testing/gateway-over-platform.js';
import type { FeedEventData } from './feed-event.js';
import { parseFeedPosition } from './feed-position.js';

/** Each feed event's place in its stream: the stream whose part of the id moved, and where it moved to. */
function streamPlaces(events: ReceivedSseEvent[]): string[] {
  const places: string[] = [];
  let previous = parseFeedPosition(events[0].id!);
  for (const event of events.slice(1)) {
    const position = parseFeedPosition(event.id!);
    if (position.registrySeq !== previous.registrySeq) places.push(`registry:${position.registrySeq}`);
    if (position.schedulerSeq !== previous.schedulerSeq) places.push(`scheduler:${position.schedulerSeq}`);
    previous = position;
  }
  return places;
}

function dataOf(event: ReceivedSseEvent): FeedEventData {
  return event.data as FeedEventData;
}

/**
 * `GET /v1/feed` over the real platform: agents joining and leaving and goals starting and ending arrive live, and a
 * reader that drops mid-feed and reconnects with `Last-Event-ID` gets exactly what it missed — compared, stream by
 * stream, with a reader that never dropped.
 */
describe('the network feed over HTTP', () => {
  let stack: GatewayOverPlatform;
  const clients: SseClient[] = [];

  async function openFeed(headers: Record<string, string> = {}, query = ''): Promise<SseClient> {
    const client = await SseClient.open(`${stack.baseUrl}/v1/feed${query}`, headers);
    clients.push(client);
    return client;
  }

  async function submitGoal(goal: string): Promise<string> {
    const response = await fetch(`${stack.baseUrl}/v1/goals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminAuthHeaders() },
      body: JSON.stringify({ goal, members: ['writer'], maxTurns: 3 }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { id: string }).id;
  }

  function goalEnded(goalId: string) {
    return (events: ReceivedSseEvent[]) =>
      events.some((event) => {
        const data = dataOf(event);
        const goal = (data.payload as GoalStatusChangedV1Event | undefined)?.goal;
        return goal?.id === goalId && ENDED_GOAL_STATUSES.includes(goal.status);
      });
  }

  beforeAll(async () => {
    stack = await startGatewayOverPlatform();
  }, 180_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await stack?.stop();
  });

  it('starts now with a ready event, then shows agents joining and leaving and goals from submission to end', async () => {
    const feed = await openFeed();
    expect(feed.status).toBe(200);
    await feed.waitFor((events) => events.length >= 1, { message: 'the ready event' });
    expect(feed.events[0].event).toBe('ready');

    const name = `feed-agent-${randomUUID().slice(0, 8)}`;
    const { agent } = await stack.platform.call<RegisterAgentV1Response>(RegisterAgentV1.subject, {
      name,
      description: 'Comes and goes.',
      skills: [{ id: 'wave', name: 'Wave', description: 'Waves.' }],
      owner: 'feed-test',
      endpoint: { kind: 'nats' },
      metadata: { communicator: 'self' },
    });
    await stack.platform.call(DeregisterAgentV1.subject, { id: agent.id, owner: 'feed-test' });
    const goalId = await submitGoal('Write one line about feeds');

    await feed.waitFor(goalEnded(goalId), { timeoutMs: 90_000, message: 'the goal ends in the feed' });
    const types = feed.events.map((event) => event.event);
    const agentTypes = feed.events
      .filter((event) => JSON.stringify(dataOf(event).payload ?? {}).includes(agent.id))
      .map((event) => event.event);
    expect(agentTypes).toEqual(expect.arrayContaining(['agent.registered', 'agent.deregistered']));
    expect(agentTypes.indexOf('agent.registered')).toBeLessThan(agentTypes.indexOf('agent.deregistered'));
    const goalTypes = feed.events
      .filter((event) => (dataOf(event).payload as GoalStatusChangedV1Event | undefined)?.goal?.id === goalId)
      .map((event) => event.event);
    expect(goalTypes[0]).toBe('goal.submitted');
    expect(goalTypes).toContain('goal.status-changed');
    expect(['goal.completed', 'goal.failed']).toContain(goalTypes.at(-1));
    expect(types.filter((type) => type === 'ready')).toHaveLength(1);
    // Ids only ever move forward.
    const places = streamPlaces(feed.events);
    expect(new Set(places).size).toBe(places.length);
  });

  it('resumes after a dropped connection with Last-Event-ID: nothing lost, nothing repeated', async () => {
    const witness = await openFeed();
    await witness.waitFor((events) => events.length >= 1, { message: 'the witness is ready' });
    const reader = await openFeed();
    await reader.waitFor((events) => events.length >= 1, { message: 'the reader is ready' });

    const first = await submitGoal('Write a line, first of two');
    await reader.waitFor((events) => events.some((event) => event.event === 'goal.submitted'), {
      message: 'the reader sees the first submission',
    });
    // Drop mid-feed: the first goal is still running, and more happens while the reader is away.
    await reader.close();
    const lastId = reader.events.at(-1)!.id!;
    const second = await submitGoal('Write a line, second of two');
    await witness.waitFor(goalEnded(first), { timeoutMs: 90_000, message: 'the first goal ends' });
    await witness.waitFor(goalEnded(second), { timeoutMs: 90_000, message: 'the second goal ends' });

    const resumed = await openFeed({ 'Last-Event-ID': lastId });
    expect(resumed.status).toBe(200);
    const witnessLast = parseFeedPosition(witness.events.at(-1)!.id!);
    await resumed.waitFor(
      (events) => {
        const at = events.length ? parseFeedPosition(events.at(-1)!.id!) : undefined;
        return !!at && at.registrySeq >= witnessLast.registrySeq && at.schedulerSeq >= witnessLast.schedulerSeq;
      },
      { timeoutMs: 30_000, message: 'the resumed reader catches up with the witness' },
    );
    expect(resumed.events[0]).toMatchObject({ event: 'ready', id: lastId });

    // Stream by stream, the reader's two connections together hold exactly the witness's events from where both began.
    const readerPlaces = [...streamPlaces(reader.events), ...streamPlaces(resumed.events)];
    const witnessPlaces = streamPlaces(witness.events);
    for (const stream of ['registry', 'scheduler']) {
      const ofStream = (places: string[]) => places.filter((place) => place.startsWith(`${stream}:`));
      const readerStart = parseFeedPosition(reader.events[0].id!);
      const witnessFrom = ofStream(witnessPlaces).filter((place) => {
        const seq = Number(place.split(':')[1]);
        return seq > (stream === 'registry' ? readerStart.registrySeq : readerStart.schedulerSeq);
      });
      expect(ofStream(readerPlaces).slice(0, witnessFrom.length)).toEqual(witnessFrom);
    }
    const goalEventsSeen = [...reader.events, ...resumed.events.slice(1)]
      .filter((event) => event.event?.startsWith('goal.'))
      .map((event) => `${event.id}`);
    expect(new Set(goalEventsSeen).size).toBe(goalEventsSeen.length);
    expect(goalEnded(first)(resumed.events)).toBe(true);
    expect(goalEnded(second)(resumed.events)).toBe(true);
  }, 240_000);

  it.each([['garbage'], ['12'], ['1.2.3'], ['999999999.0']])('refuses Last-Event-ID %j with a 400', async (id) => {
    const client = await openFeed({ 'Last-Event-ID': id });
    expect(client.status).toBe(400);
  });

  it('refuses ?after= that is not a feed id with a 400', async () => {
    expect((await openFeed({}, '?after=yesterday')).status).toBe(400);
  });
});
