import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import {
  CreateGroupV1,
  MessagePostedV1,
  ProposeMoveV1,
  TurnGrantedV1,
  type CreateGroupV1Request,
  type GroupV1,
  type MessagePostedV1Event,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import { connectRaw, expectEventually, rawRequest, type TestInfrastructure } from '@ioa/testing';
import { ChatModule } from '../../apps/chat/src/chat.module.js';
import {
  benchCommand,
  benchLog,
  DATABASE_LABELS,
  databaseKinds,
  databaseVersion,
  describeMachine,
  distribution,
  envNumber,
  loadAverage,
  ms,
  nativePostgres,
  p50p99,
  perSecond,
  ratio,
  runDate,
  startBenchInfrastructure,
  updateBenchmarksDoc,
  type DatabaseKind,
  type Distribution,
} from './bench-support.js';

/**
 * # Benchmark: the chat message path
 *
 * `npm run bench:chat` (options: `BENCH_DB=pglite|native|both`, `BENCH_GROUPS=100`, `BENCH_SECONDS=20`,
 * `BENCH_RAW_SECONDS=10`, `BENCH_NO_DOCS=1`).
 *
 * 100 groups of 4 members talk at once through the real chat service (real nats-server, real database). Members
 * are plain NATS clients, as external agents are: each follows `TurnGrantedV1` and, when it holds the turn,
 * proposes a `discussion` naming the next member — as fast as the turn allows (one move in flight per group). An
 * observer on its own connection subscribes to `MessagePostedV1`. Measured over a steady-state window:
 * messages persisted per second (rows counted in `chat.messages`), messages delivered per second (received by the
 * observer), and the latency from "propose sent" to "message delivered to the observer".
 *
 * In the same run, on the same broker, with the payload size of the chat's `MessagePostedV1` events and the same
 * concurrency (100 closed-loop flows): raw NATS core publish → subscribe, and JetStream publish (awaiting the ack),
 * so the chat path can be read as a ratio of what the broker alone does on this machine at that moment.
 */

const log = benchLog('chat');
const SECTION = 'chat-path';
const decoder = new TextDecoder();

const GROUPS = envNumber('BENCH_GROUPS', 100);
const MEMBERS_PER_GROUP = 4;
const MEASURE_SECONDS = envNumber('BENCH_SECONDS', 20);
const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', 5);
const RAW_SECONDS = envNumber('BENCH_RAW_SECONDS', 10);
const RAW_WARMUP_SECONDS = 2;
/** Turn limit of each group: the most the chat allows, so groups rarely hit it (one that does concludes and is replaced). */
const MAX_TURNS = 200;

interface ChatPathFigures {
  groups: number;
  windowSeconds: number;
  persistedPerSecond: number;
  deliveredPerSecond: number;
  repliesPerSecond: number;
  /** propose sent → `MessagePostedV1` received by the observer. */
  deliveryLatency: Distribution;
  /** propose sent → the member's reply (committed, events published). */
  replyLatency: Distribution;
  /** propose sent → the next speaker received its `TurnGrantedV1`. */
  turnCycle: Distribution;
  rejected: number;
  orderingViolations: number;
  messageBytes: number;
  grantBytes: number;
  replacedGroups: number;
  /** CPU time of this process during the window, as a share of one core. */
  cpuShare: number;
}

interface RawFigures {
  perSecond: number;
  latency: Distribution;
  deliveredPerSecond?: number;
  deliveryLatency?: Distribution;
}

interface ChatPathResult {
  kind: DatabaseKind;
  databaseVersion: string;
  chat: ChatPathFigures;
  /** One group on its own: the path's latency without queueing behind other groups. */
  alone: ChatPathFigures;
  core: RawFigures;
  jetstream: RawFigures;
  loadBefore: string;
  loadAfter: string;
  seconds: number;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('bench: chat message path', () => {
  it(
    `${GROUPS} groups of ${MEMBERS_PER_GROUP} against raw NATS and JetStream`,
    async () => {
      const kinds = databaseKinds('both');
      let ran = 0;
      for (const kind of kinds) {
        let serverUrl: string | undefined;
        let stopServer = () => undefined as void;
        if (kind === 'native-postgres') {
          const native = nativePostgres(log);
          if ('unavailable' in native) {
            log(`native PostgreSQL skipped: ${native.unavailable}`);
            continue;
          }
          serverUrl = native.url;
          stopServer = native.stop;
        }
        try {
          const result = await runChatPathBench(kind, serverUrl);
          const markdown = render(result);
          process.stdout.write(`\n${markdown}\n\n`);
          await updateBenchmarksDoc(SECTION, INTRO, kind, markdown, ['pglite', 'native-postgres']);
          ran += 1;
        } finally {
          stopServer();
        }
      }
      expect(ran).toBeGreaterThan(0);
    },
    15 * 60_000,
  );
});

async function runChatPathBench(kind: DatabaseKind, serverUrl: string | undefined): Promise<ChatPathResult> {
  const started = performance.now();
  const loadBefore = loadAverage();
  log(`${DATABASE_LABELS[kind]}: starting nats-server, the database and the chat service`);
  const infrastructure = await startBenchInfrastructure(kind, serverUrl);
  infrastructure.applyEnvironment({});
  let chat: INestMicroservice | undefined;
  const connections: NatsConnection[] = [];
  try {
    chat = await createService(ChatModule, { name: 'chat', logger: ['error', 'fatal'] });
    const members = await connectRaw(infrastructure.natsUrl);
    const observer = await connectRaw(infrastructure.natsUrl);
    connections.push(members, observer);
    const version = await databaseVersion(infrastructure.databaseUrl, kind);

    // First one group alone (the latency without contention), then the load.
    const alone = await measureChatPath(infrastructure, members, observer, { groups: 1, warmupSeconds: 2, seconds: 5 });
    const figures = await measureChatPath(infrastructure, members, observer, {
      groups: GROUPS,
      warmupSeconds: WARMUP_SECONDS,
      seconds: MEASURE_SECONDS,
    });
    // The chat is idle from here on (no group holds a proposing member); stop it so the raw runs have the CPU.
    await chat.close();
    chat = undefined;
    log(
      `chat: ${perSecond(figures.deliveredPerSecond)} delivered; now raw NATS with ${figures.messageBytes} B payloads`,
    );
    const payload = payloadOf(figures.messageBytes);
    const core = await measureCore(members, observer, payload, figures.groups);
    log(`core NATS: ${perSecond(core.perSecond)}`);
    const js = await measureJetStream(members, observer, payload, figures.groups);
    log(`JetStream: ${perSecond(js.perSecond)} acked`);
    return {
      kind,
      databaseVersion: version,
      chat: figures,
      alone,
      core,
      jetstream: js,
      loadBefore,
      loadAfter: loadAverage(),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    for (const connection of connections) await connection.close().catch(() => undefined);
    await chat?.close();
    await infrastructure.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the chat path

interface BenchGroup {
  id: string;
  memberIds: string[];
}

const DISCUSSION =
  'I went through the figures from the previous step: the totals match the ledger, the two outliers are ' +
  'explained by the late invoices, and the remaining items look consistent. Could you review the open points ' +
  'and add what is still missing before we conclude?';

interface ChatLoad {
  groups: number;
  warmupSeconds: number;
  seconds: number;
}

async function measureChatPath(
  infrastructure: TestInfrastructure,
  members: NatsConnection,
  observer: NatsConnection,
  load: ChatLoad,
): Promise<ChatPathFigures> {
  const groups = new Map<string, BenchGroup>();
  const sentAt = new Map<string, number>();
  let running = true;
  let inFlight = 0;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  const inWindow = (at: number) => at >= windowStart && at < windowEnd;
  const delivery: number[] = [];
  const replies: number[] = [];
  const cycles: number[] = [];
  let delivered = 0;
  let repliesInWindow = 0;
  let rejected = 0;
  let orderingViolations = 0;
  let messageBytes = 0;
  let messageCount = 0;
  let grantBytes = 0;
  let grantCount = 0;
  let replacedGroups = 0;
  const subscriptions: Subscription[] = [];
  const lastSeqByGroup = new Map<string, number>();

  const openGroup = async (): Promise<void> => {
    const memberIds = Array.from({ length: MEMBERS_PER_GROUP }, () => randomUUID());
    const request: CreateGroupV1Request = {
      goalId: randomUUID(),
      goal: 'Reconcile the quarterly figures and agree on the open points (chat benchmark).',
      members: memberIds.map((agentId, index) => ({ agentId, name: `member-${index + 1}` })),
      leaderId: memberIds[0],
      maxTurns: MAX_TURNS,
      turnTimeoutSeconds: 60,
    };
    // Registered before the request: the first grant may arrive before the reply.
    const placeholder: BenchGroup = { id: '', memberIds };
    pendingByLeader.set(memberIds[0], placeholder);
    const reply = await rawRequest(members, CreateGroupV1.subject, request, 30_000);
    if (!reply.ok) throw new Error(`CreateGroupV1 failed: ${JSON.stringify(reply.error)}`);
    const group = reply.data as GroupV1;
    placeholder.id = group.id;
    groups.set(group.id, placeholder);
    pendingByLeader.delete(memberIds[0]);
    const early = earlyGrants.get(group.id);
    if (early) {
      earlyGrants.delete(group.id);
      onGrant(placeholder, early);
    }
  };
  const pendingByLeader = new Map<string, BenchGroup>();
  const earlyGrants = new Map<string, TurnGrantedV1Event>();

  const propose = (group: BenchGroup, grant: TurnGrantedV1Event): void => {
    const key = `${group.id}:${grant.turn}`;
    const speaker = group.memberIds.indexOf(grant.speakerId);
    const body = grant.mustConclude
      ? { type: 'conclude', content: 'We agree on the figures; concluding (turn limit reached).' }
      : {
          type: 'discussion',
          content: `${DISCUSSION} (turn ${grant.turn})`,
          nextSpeaker: group.memberIds[(speaker + 1) % group.memberIds.length],
        };
    const sent = performance.now();
    sentAt.set(key, sent);
    inFlight += 1;
    members
      .request(
        ProposeMoveV1.subject,
        JSON.stringify({ groupId: group.id, speakerId: grant.speakerId, turn: grant.turn, ...body }),
        { timeout: 60_000 },
      )
      .then(
        (message) => {
          const at = performance.now();
          const reply = JSON.parse(decoder.decode(message.data)) as { ok: boolean };
          if (reply.ok) {
            if (inWindow(at)) repliesInWindow += 1;
            if (inWindow(sent)) replies.push(at - sent);
          } else {
            rejected += 1;
            log(`move rejected: ${decoder.decode(message.data).slice(0, 300)}`);
          }
        },
        (error: unknown) => {
          rejected += 1;
          log(`move failed: ${String(error)}`);
        },
      )
      .finally(() => {
        inFlight -= 1;
      });
    if (grant.mustConclude && running) {
      replacedGroups += 1;
      void openGroup().catch((error: unknown) => log(`could not open a replacement group: ${String(error)}`));
    }
  };

  function onGrant(group: BenchGroup, grant: TurnGrantedV1Event): void {
    const previous = sentAt.get(`${group.id}:${grant.turn - 1}`);
    const at = performance.now();
    if (previous !== undefined && inWindow(previous)) cycles.push(at - previous);
    if (running) propose(group, grant);
  }

  // Members: one connection for all 400 (an agent needs nothing but the grant and the propose subject).
  subscriptions.push(
    members.subscribe(TurnGrantedV1.subject, {
      callback: (_error, message) => {
        grantBytes += message.data.length;
        grantCount += 1;
        const grant = JSON.parse(decoder.decode(message.data)) as TurnGrantedV1Event;
        const group = groups.get(grant.groupId);
        if (group) onGrant(group, grant);
        else if (pendingByLeader.has(grant.speakerId)) earlyGrants.set(grant.groupId, grant);
      },
    }),
  );
  // The observer: a separate connection that only watches messages being posted.
  subscriptions.push(
    observer.subscribe(MessagePostedV1.subject, {
      callback: (_error, message) => {
        const at = performance.now();
        const event = JSON.parse(decoder.decode(message.data)) as MessagePostedV1Event;
        // Per group, from the first message seen on (a group's opening message may come before its id is known).
        const lastSeq = lastSeqByGroup.get(event.message.groupId);
        if (lastSeq !== undefined && event.message.seq !== lastSeq + 1) orderingViolations += 1;
        lastSeqByGroup.set(event.message.groupId, event.message.seq);
        if (event.message.senderId === 'system') return;
        messageBytes += message.data.length;
        messageCount += 1;
        if (inWindow(at)) delivered += 1;
        const sent = sentAt.get(`${event.message.groupId}:${event.message.turn}`);
        if (sent !== undefined && inWindow(sent)) delivery.push(at - sent);
      },
    }),
  );
  await Promise.all([members.flush(), observer.flush()]);

  const database = new pg.Client({ connectionString: infrastructure.databaseUrl });
  await database.connect();
  const countMessages = async () =>
    Number((await database.query<{ count: string }>('SELECT count(*) FROM chat.messages')).rows[0].count);
  try {
    log(`opening ${load.groups} group(s) of ${MEMBERS_PER_GROUP}`);
    // A few at a time: the groups start talking as soon as they exist.
    for (let index = 0; index < load.groups; index += 10) {
      await Promise.all(Array.from({ length: Math.min(10, load.groups - index) }, () => openGroup()));
    }
    log(`warming up ${load.warmupSeconds} s, then measuring ${load.seconds} s`);
    await sleep(load.warmupSeconds * 1000);
    const persistedBefore = await countMessages();
    const cpuBefore = process.cpuUsage();
    windowStart = performance.now();
    await sleep(load.seconds * 1000);
    windowEnd = performance.now();
    const cpu = process.cpuUsage(cpuBefore);
    const persistedAfter = await countMessages();
    // The count queries take time too: the window is what lies between the two counts.
    const windowSeconds = (windowEnd - windowStart) / 1000;
    running = false;
    await expectEventually(() => inFlight === 0, { timeoutMs: 60_000, message: 'proposals still in flight' });
    return {
      groups: groups.size,
      windowSeconds,
      persistedPerSecond: (persistedAfter - persistedBefore) / windowSeconds,
      deliveredPerSecond: delivered / windowSeconds,
      repliesPerSecond: repliesInWindow / windowSeconds,
      deliveryLatency: distribution(delivery),
      replyLatency: distribution(replies),
      turnCycle: distribution(cycles),
      rejected,
      orderingViolations,
      messageBytes: Math.round(messageBytes / Math.max(1, messageCount)),
      grantBytes: Math.round(grantBytes / Math.max(1, grantCount)),
      replacedGroups,
      cpuShare: (cpu.user + cpu.system) / 1000 / (windowEnd - windowStart),
    };
  } finally {
    running = false;
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    await database.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// raw NATS, same payload size and concurrency

/** A JSON document of about `bytes` bytes, shaped like an event (so the broker sees similar data). */
function payloadOf(bytes: number): Uint8Array {
  const skeleton = { message: { id: randomUUID(), groupId: randomUUID(), seq: 1, content: '' } };
  const padding = Math.max(0, bytes - JSON.stringify(skeleton).length);
  skeleton.message.content = 'x'.repeat(padding);
  return new TextEncoder().encode(JSON.stringify(skeleton));
}

/** `flows` closed loops: publish, wait until the observer received it, publish the next. */
async function measureCore(
  publisher: NatsConnection,
  observer: NatsConnection,
  payload: Uint8Array,
  flows: number,
): Promise<RawFigures> {
  const sentAt = new Array<number>(flows).fill(0);
  let running = true;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let received = 0;
  const latencies: number[] = [];
  const send = (flow: number) => {
    sentAt[flow] = performance.now();
    publisher.publish(`bench.core.${flow}`, payload);
  };
  const subscription = observer.subscribe('bench.core.>', {
    callback: (_error, message) => {
      const at = performance.now();
      const flow = Number(message.subject.slice('bench.core.'.length));
      if (at >= windowStart && at < windowEnd) {
        received += 1;
        latencies.push(at - sentAt[flow]);
      }
      if (running) send(flow);
    },
  });
  await observer.flush();
  for (let flow = 0; flow < flows; flow++) send(flow);
  await sleep(RAW_WARMUP_SECONDS * 1000);
  windowStart = performance.now();
  await sleep(RAW_SECONDS * 1000);
  windowEnd = performance.now();
  running = false;
  await publisher.flush();
  await observer.flush();
  subscription.unsubscribe();
  return { perSecond: received / ((windowEnd - windowStart) / 1000), latency: distribution(latencies) };
}

/**
 * `flows` closed loops of JetStream publishes (each awaits its ack, with a message id, as the chat's outbox does)
 * into a stream configured like the chat's; the observer also times delivery to a core subscriber.
 */
async function measureJetStream(
  publisher: NatsConnection,
  observer: NatsConnection,
  payload: Uint8Array,
  flows: number,
): Promise<RawFigures> {
  const manager = await jetstreamManager(publisher);
  const stream = 'BENCH_RAW_JETSTREAM';
  await manager.streams.add({ name: stream, subjects: ['bench.js.>'], duplicate_window: 2 * 60 * 1_000_000_000 });
  const js = jetstream(publisher);
  const sentAt = new Array<number>(flows).fill(0);
  let running = true;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  const inWindow = (at: number) => at >= windowStart && at < windowEnd;
  let acked = 0;
  let delivered = 0;
  const ackLatencies: number[] = [];
  const deliveryLatencies: number[] = [];
  const subscription = observer.subscribe('bench.js.>', {
    callback: (_error, message) => {
      const at = performance.now();
      const flow = Number(message.subject.slice('bench.js.'.length));
      if (inWindow(at)) {
        delivered += 1;
        deliveryLatencies.push(at - sentAt[flow]);
      }
    },
  });
  await observer.flush();
  const loop = async (flow: number) => {
    while (running) {
      const sent = performance.now();
      sentAt[flow] = sent;
      await js.publish(`bench.js.${flow}`, payload, { msgID: randomUUID() });
      const at = performance.now();
      if (inWindow(at)) {
        acked += 1;
        ackLatencies.push(at - sent);
      }
    }
  };
  const loops = Array.from({ length: flows }, (_, flow) => loop(flow));
  await sleep(RAW_WARMUP_SECONDS * 1000);
  windowStart = performance.now();
  await sleep(RAW_SECONDS * 1000);
  windowEnd = performance.now();
  running = false;
  await Promise.all(loops);
  subscription.unsubscribe();
  await manager.streams.delete(stream);
  const seconds = (windowEnd - windowStart) / 1000;
  return {
    perSecond: acked / seconds,
    latency: distribution(ackLatencies),
    deliveredPerSecond: delivered / seconds,
    deliveryLatency: distribution(deliveryLatencies),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// docs/benchmarks.md

const INTRO = `
## Chat message path

\`\`\`bash
npm run bench:chat                    # embedded PGlite, then native PostgreSQL 15 (deploy/local/native-postgres.sh, needs root, or TEST_DATABASE_URL)
BENCH_DB=pglite npm run bench:chat    # one database only (pglite | native | both)
BENCH_GROUPS=100 BENCH_SECONDS=20 BENCH_RAW_SECONDS=10 npm run bench:chat
\`\`\`

Code: \`test/bench/chat-path.bench.ts\` (a Jest file with the \`.bench.ts\` suffix, so \`npm test\` never runs it).

**What it does.** One process boots the real chat service (production settings: 250 ms sweeper, 12-message turn
window, 10 database connections) against a real nats-server and a fresh database, and plays ${GROUPS} groups of
${MEMBERS_PER_GROUP} members as plain NATS clients: each member follows \`TurnGrantedV1\` and, holding the turn, proposes a
\`discussion\` (about 50 words) naming the next member, as fast as the turn allows — one move in flight per group,
which is all the state machine permits. Every accepted move is one transaction (group row locked \`FOR UPDATE\`,
message appended, group updated, two outbox rows), then the outbox publishes \`MessagePostedV1\` and the next
\`TurnGrantedV1\` to JetStream (acked) before the member gets its reply. An observer on its own connection subscribes
to \`MessagePostedV1\`. After a warm-up, a steady-state window is measured:

- *persisted/s*: rows added to \`chat.messages\` during the window (counted in the database);
- *delivered/s*: \`MessagePostedV1\` events received by the observer during the window;
- *latency*: propose sent → the event received by the observer (p50 / p99); also propose → reply, and propose →
  the next speaker holding its \`TurnGrantedV1\` (the turn cycle);
- the observer checks that each group's messages arrive in \`seq\` order without gaps;
- before the load, one group alone for 5 s: the path's latency without queueing behind other groups.

Then, in the same run, on the same broker and from the same two connections, with payloads of the size of the
chat's \`MessagePostedV1\` events and the same concurrency (${GROUPS} closed-loop flows): **NATS core** publish → subscriber
(publish the next message when the previous one arrived), and **JetStream** publish awaiting the ack (with a
message id, into a stream configured like the chat's: file storage, 2-minute duplicate window). The ratios divide
the chat's figure by the raw one measured minutes apart on the same machine, which is what makes them comparable
on a shared, noisy machine: absolute rates can differ by a factor of two from one run to the next there, the
ratios much less.

**How to read it.** Everything but nats-server (and the native PostgreSQL server) runs in one Node.js process on
one event loop: the chat service, the 400 members, the observer and, for PGlite, the database itself (WebAssembly,
single session, so transactions are serialized — and since the outbox publishes to JetStream inside its claim
transaction, PGlite also sits idle while the acknowledgements come back, which makes its figures swing with the
broker's latency on a busy machine). The chat path's cost per message is one request/reply, one
database transaction plus the outbox's claim-and-delete transaction, and two acknowledged JetStream publishes, so
it cannot approach core NATS; the JetStream ratio says how much of it the database and the state machine add on
top of the durable publishes the chat needs anyway.
`;

function render(result: ChatPathResult): string {
  const { chat, alone, core, jetstream: js } = result;
  const label = DATABASE_LABELS[result.kind];
  const delivery = chat.deliveryLatency;
  const coreRatio = chat.deliveredPerSecond / core.perSecond;
  const jsRatio = chat.deliveredPerSecond / js.perSecond;
  // Little's law: with one move in flight per group, latency ≈ groups / throughput when the path is saturated.
  const queueing = (chat.groups / chat.deliveredPerSecond) * 1000;
  const lines = [
    `### ${label} — ${runDate()}`,
    '',
    `- Machine: ${describeMachine()}; load average (1/5/15 min) ${result.loadBefore} before, ${result.loadAfter} after ` +
      '(shared with other jobs)',
    `- Database: ${result.databaseVersion}; nats-server 2.9 (JetStream, file storage), local`,
    `- Command: \`${benchCommand('bench:chat')}\` ` +
      `(${chat.groups} groups × ${MEMBERS_PER_GROUP} members, ${chat.windowSeconds.toFixed(1)} s window after ${WARMUP_SECONDS} s warm-up; ` +
      `raw runs ${RAW_SECONDS} s each; this database's part of the run ${Math.round(result.seconds)} s)`,
    '',
    `| path (${chat.groups} concurrent flows, ${chat.messageBytes} B payload) | messages/s | latency p50 / p99 | chat ÷ this, throughput | chat ÷ this, p50 latency |`,
    '| --- | ---: | ---: | ---: | ---: |',
    `| **chat**: propose → persisted (rows added to \`chat.messages\`) | **${perSecond(chat.persistedPerSecond)}** | | | |`,
    `| **chat**: propose → delivered (\`MessagePostedV1\` at the observer) | **${perSecond(chat.deliveredPerSecond)}** | **${p50p99(delivery)}** | 1 | 1 |`,
    `| NATS core: publish → subscriber | ${perSecond(core.perSecond)} | ${p50p99(core.latency)} | ${ratio(coreRatio)} | ${ratio(delivery.p50 / core.latency.p50)} |`,
    `| JetStream: publish → ack | ${perSecond(js.perSecond)} | ${p50p99(js.latency)} | ${ratio(jsRatio)} | ${ratio(delivery.p50 / js.latency.p50)} |`,
    `| JetStream: publish → core subscriber | ${perSecond(js.deliveredPerSecond ?? 0)} | ${p50p99(js.deliveryLatency!)} | | |`,
    `| *chat, one group alone (no contention)* | ${perSecond(alone.deliveredPerSecond)} | ${p50p99(alone.deliveryLatency)} | | |`,
    '',
    `The chat path delivers **${ratio(coreRatio)}×** the message rate of raw core NATS and **${ratio(jsRatio)}×** that of ` +
      `acknowledged JetStream publishes at the same concurrency; its median latency is ${ratio(delivery.p50 / core.latency.p50)}× ` +
      `and ${ratio(delivery.p50 / js.latency.p50)}× theirs. Under load the latency is queueing: with one move in flight per ` +
      `group, ${chat.groups} groups at ${perSecond(chat.deliveredPerSecond)} wait about ${ms(queueing)} each (Little's law), ` +
      `while one group alone sees ${p50p99(alone.deliveryLatency)} (p50 / p99). Each message also costs a \`TurnGrantedV1\` ` +
      `publish with the bounded window (${chat.grantBytes} B on average), so the chat publishes two JetStream events per message.`,
    '',
    `Turn cycle (propose sent → the next speaker holds its \`TurnGrantedV1\`): ${p50p99(chat.turnCycle)}. ` +
      `The member's reply (propose → reply) took ${p50p99(chat.replyLatency)}; replies received during the window: ` +
      `${perSecond(chat.repliesPerSecond)}` +
      (chat.repliesPerSecond === 0
        ? ' — none: the chat answers a move only after its events are published (members here move on the turn ' +
          'grant, not on the reply).'
        : chat.replyLatency.p50 > 1.5 * delivery.p50
          ? ' — behind delivery: the chat answers a move only after the outbox pass that publishes its events ends ' +
            '(a pass publishes the rows committed before it began, so it may wait behind an earlier pass).'
          : '.') +
      ` The Node.js process (chat, members, observer${result.kind === 'pglite' ? ', PGlite' : ''}) used ` +
      `${(chat.cpuShare * 100).toFixed(0)} % of one core during the window. Moves rejected: ${chat.rejected}; ordering violations seen by the observer (per group, \`seq\` must grow by one): ` +
      `${chat.orderingViolations}; groups that reached the turn limit and were replaced: ${chat.replacedGroups}; ` +
      `latency samples: ${delivery.count} (mean ${ms(delivery.mean)}, max ${ms(delivery.max)}).`,
  ];
  return lines.join('\n');
}
