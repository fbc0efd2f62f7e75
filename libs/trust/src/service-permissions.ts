import {
  ALL_CONTRACTS,
  AdaptersHealthV1,
  AgentHostHealthV1,
  ChatHealthV1,
  DiscoveryHealthV1,
  RegistryHealthV1,
  SchedulerHealthV1,
  AssignTaskV1,
  AgentWentOfflineV1,
  CloseGroupV1,
  CreateGroupV1,
  DEAD_LETTERS_STREAM,
  REGISTRY_EVENTS_STREAM,
  SCHEDULER_EVENTS_STREAM,
  deadLetterSubjectsOf,
  DeregisterAgentV1,
  ForceConclusionV1,
  GetAgentV1,
  GetGroupV1,
  GoalEventAppendedV1,
  GroupStateChangedV1,
  HeartbeatAgentV1,
  ListAgentsV1,
  ListMessagesV1,
  MessagePostedV1,
  PostUserMessageV1,
  ProposeMoveV1,
  RegisterAgentV1,
  ReportTaskV1,
  SearchAgentsV1,
  SubmitGoalV1,
  TaskCanceledV1,
  TasksAssignedV1,
  TaskUpdatedV1,
  TurnGrantedV1,
  UpdateAgentV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentDeregisteredV1,
  AgentCameOnlineV1,
  type AnyContract,
  type EventContract,
  type RequestContract,
} from '@ioa/contracts';

/** The platform's services: one NATS user each. */
export const PLATFORM_SERVICES = [
  'registry',
  'discovery',
  'chat',
  'scheduler',
  'agent-host',
  'adapters',
  'gateway',
] as const;
export type PlatformService = (typeof PLATFORM_SERVICES)[number];

/**
 * What the contract catalog cannot say about a service: the requests it makes, the events it consumes (and
 * whether through a durable JetStream consumer or a plain subscription), and the events or requests it sends that
 * another context owns (the scheduler's task assignments, addressed to `ioa.agent.<id>.…`). What a service SERVES
 * and PUBLISHES as owner is derived from the catalog (`owner`), so it cannot drift; this table is checked against
 * the catalog by `service-permissions.spec.ts` and against the running platform by the auth e2e suites (a missing
 * grant shows up there as a "Permissions Violation").
 */
export interface ServiceNeeds {
  requests: readonly RequestContract<unknown, unknown>[];
  /** Stream events read through the service's durable consumers (`<durable>-<subject token>`). */
  streamConsumes: readonly EventContract<unknown>[];
  /** Events (or per-agent deliveries) read with a plain subscription. */
  coreConsumes: readonly AnyContract[];
  /** Addressed contracts owned by `agent` that this service sends (task assignments and cancellations). */
  sendsForAgents: readonly AnyContract[];
  /** Addressed contracts owned by `agent` that this service serves for the agents it hosts. */
  servesForAgents: readonly AnyContract[];
  /** The durable name its consumers use (the service name everywhere today). */
  durable?: string;
}

const NONE = [] as const;

/** The agent-side requests that only the agent itself (or a service hosting it) makes: never the gateway's. */
const AGENT_ACTIONS: readonly AnyContract[] = [HeartbeatAgentV1, ProposeMoveV1, ReportTaskV1];

// Each service asks its own health subject: the container health check (deploy/docker/healthcheck.ts) runs as it.
export const SERVICE_NEEDS: Readonly<Record<PlatformService, ServiceNeeds>> = {
  registry: {
    requests: [RegistryHealthV1],
    streamConsumes: NONE,
    coreConsumes: NONE,
    sendsForAgents: NONE,
    servesForAgents: NONE,
  },
  discovery: {
    requests: [ListAgentsV1, GetAgentV1, DiscoveryHealthV1],
    streamConsumes: [AgentRegisteredV1, AgentUpdatedV1, AgentDeregisteredV1, AgentWentOfflineV1, AgentCameOnlineV1],
    coreConsumes: NONE,
    sendsForAgents: NONE,
    servesForAgents: NONE,
  },
  chat: {
    requests: [GetAgentV1, ChatHealthV1],
    streamConsumes: [TaskUpdatedV1],
    coreConsumes: NONE,
    sendsForAgents: NONE,
    servesForAgents: NONE,
  },
  scheduler: {
    requests: [
      SchedulerHealthV1,
      GetAgentV1,
      SearchAgentsV1,
      CreateGroupV1,
      CloseGroupV1,
      ForceConclusionV1,
      GetGroupV1,
      ListMessagesV1,
      PostUserMessageV1,
    ],
    streamConsumes: [AgentWentOfflineV1, GroupStateChangedV1, MessagePostedV1, TasksAssignedV1],
    coreConsumes: NONE,
    sendsForAgents: [AssignTaskV1, TaskCanceledV1],
    servesForAgents: NONE,
  },
  'agent-host': {
    requests: [
      AgentHostHealthV1,
      GetAgentV1,
      GetGroupV1,
      ListMessagesV1,
      RegisterAgentV1,
      HeartbeatAgentV1,
      ProposeMoveV1,
      ReportTaskV1,
      SubmitGoalV1,
    ],
    streamConsumes: [TurnGrantedV1],
    coreConsumes: [TaskCanceledV1],
    sendsForAgents: NONE,
    servesForAgents: [AssignTaskV1],
  },
  adapters: {
    requests: [
      AdaptersHealthV1,
      GetAgentV1,
      GetGroupV1,
      ListMessagesV1,
      RegisterAgentV1,
      UpdateAgentV1,
      DeregisterAgentV1,
      HeartbeatAgentV1,
      ProposeMoveV1,
      ReportTaskV1,
    ],
    streamConsumes: NONE,
    coreConsumes: [MessagePostedV1, TaskCanceledV1],
    sendsForAgents: NONE,
    servesForAgents: [AssignTaskV1],
  },
  gateway: {
    // The REST facade: every platform request except the ones only an agent makes about itself (computed below).
    requests: NONE,
    streamConsumes: NONE,
    coreConsumes: [GoalEventAppendedV1],
    sendsForAgents: NONE,
    servesForAgents: NONE,
  },
};

/** Permissions as nats-server and the user JWT spell them. */
export interface NatsPermissions {
  pub: { allow: string[]; deny: string[] };
  sub: { allow: string[]; deny: string[] };
  /** allow_responses: may answer (once) a request delivered to it. */
  resp?: { max: number; ttl: number };
}

/** The inbox prefix of a service or agent: its replies arrive only there, and only it may read there. */
export function inboxPrefixOf(name: string): string {
  return `_INBOX.${name}`;
}

function isServiceOwner(contract: AnyContract, service: PlatformService): boolean {
  return contract.owner === service;
}

/** Request contracts any service owns (everything the gateway may forward a REST call to). */
function gatewayRequests(catalog: readonly AnyContract[]): AnyContract[] {
  return catalog.filter(
    (contract) =>
      contract.kind === 'request' &&
      contract.owner !== 'agent' &&
      contract.owner !== 'gateway' &&
      !contract.subject.startsWith('ioa.agent.') &&
      !AGENT_ACTIONS.includes(contract),
  );
}

/** The streams the gateway's network feed (GET /v1/feed) reads with ordered consumers of its own. */
const FEED_STREAMS = [REGISTRY_EVENTS_STREAM, SCHEDULER_EVENTS_STREAM];

/** Every service's durable consumers on `stream` (their current and legacy names). */
function durableConsumersOn(stream: string): string[] {
  const names: string[] = [];
  for (const [service, needs] of Object.entries(SERVICE_NEEDS)) {
    const durable = needs.durable ?? service;
    const events = needs.streamConsumes.filter((event) => event.stream === stream);
    for (const event of events) names.push(durableConsumerName(durable, event.subject));
    if (events.length > 0) names.push(`${durable}-${stream}`.replace(/[^A-Za-z0-9_-]/g, '_'));
  }
  return names;
}

/** The durable consumer name `EventBus` gives a service's consumer of `subject` (see libs/messaging event-bus). */
export function durableConsumerName(durable: string, subject: string): string {
  return `${durable}-${subject.replace(/^ioa\./, '').replace(/\./g, '-')}`;
}

/** Streams named by the catalog (every service ensures them all at boot), plus the dead letters'. */
export function streamsOf(catalog: readonly AnyContract[]): string[] {
  const streams = new Set<string>([DEAD_LETTERS_STREAM]);
  for (const contract of catalog) if (contract.kind === 'event' && contract.stream) streams.add(contract.stream);
  return [...streams].sort();
}

/**
 * The least privilege of one service: publish its own events, the requests it makes and its own dead letters;
 * subscribe to the requests it serves (in its queue group), the events it consumes and its own inbox; answer the
 * requests delivered to it; and, in the JetStream API, create/look up the platform's streams (every service ensures
 * them at boot) and create/read/ack only its own durable consumers. It may not delete or purge a stream, nor touch
 * another service's consumer.
 */
export function servicePermissions(
  service: PlatformService,
  catalog: readonly AnyContract[] = ALL_CONTRACTS,
): NatsPermissions {
  const needs = SERVICE_NEEDS[service];
  const durable = needs.durable ?? service;
  const owned = catalog.filter((contract) => isServiceOwner(contract, service));
  const served = [...owned.filter((contract) => contract.kind === 'request'), ...needs.servesForAgents];
  const published = [...owned.filter((contract) => contract.kind === 'event'), ...needs.sendsForAgents];
  const requests = service === 'gateway' ? gatewayRequests(catalog) : needs.requests;

  const pub = new Set<string>([
    ...published.map((contract) => contract.subject),
    ...requests.map((contract) => contract.subject),
    deadLetterSubjectsOf(service),
  ]);
  const sub = new Set<string>([
    ...served.map((contract) => contract.subject),
    ...needs.coreConsumes.map((contract) => contract.subject),
    `${inboxPrefixOf(service)}.>`,
  ]);

  const streams = streamsOf(catalog);
  const jsPublish = ['$JS.API.INFO', '$JS.API.STREAM.NAMES', '$JS.API.STREAM.LIST'];
  for (const stream of streams) {
    jsPublish.push(
      `$JS.API.STREAM.INFO.${stream}`,
      `$JS.API.STREAM.CREATE.${stream}`,
      `$JS.API.STREAM.UPDATE.${stream}`,
    );
  }
  // Dead letters: listed, read and removed (on replay) by the service that recorded them. The dead letters stream
  // is shared, so a service could read another's entries by sequence; they hold event bodies any consumer of the
  // original stream could read anyway.
  jsPublish.push(
    `$JS.API.STREAM.MSG.GET.${DEAD_LETTERS_STREAM}`,
    `$JS.API.STREAM.MSG.DELETE.${DEAD_LETTERS_STREAM}`,
    `$JS.API.DIRECT.GET.${DEAD_LETTERS_STREAM}`,
  );
  const consumedStreams = new Set<string>();
  for (const event of needs.streamConsumes) {
    const stream = event.stream;
    if (!stream) throw new Error(`${event.subject} has no stream: list it under coreConsumes`);
    consumedStreams.add(stream);
    const name = durableConsumerName(durable, event.subject);
    // `CONSUMER.*.<stream>.<name>` is its own consumer's CREATE, INFO and DELETE in one grant: a user JWT travels in
    // the CONNECT line, so its permission list is kept short.
    jsPublish.push(
      `$JS.API.CONSUMER.*.${stream}.${name}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${name}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${name}`,
      `$JS.ACK.${stream}.${name}.>`,
    );
  }
  for (const stream of consumedStreams) {
    // The stream-wide consumer of earlier versions (`<service>-<STREAM>`), looked up and retired at boot.
    const legacy = `${durable}-${stream}`.replace(/[^A-Za-z0-9_-]/g, '_');
    jsPublish.push(`$JS.API.CONSUMER.*.${stream}.${legacy}`);
  }

  const jsDeny: string[] = [];
  if (service === 'gateway') {
    // GET /v1/feed reads the registry's and the scheduler's streams with ordered consumers, whose names are one token
    // per reader (`gateway_feed_<reader>_<n>`), so the grant is by stream with a wildcard name; the services' own
    // durable consumers on those streams are denied by name, so the gateway can neither pull their events nor
    // delete them.
    for (const stream of FEED_STREAMS) {
      jsPublish.push(
        `$JS.API.CONSUMER.CREATE.${stream}.*`,
        `$JS.API.CONSUMER.CREATE.${stream}.*.>`,
        `$JS.API.CONSUMER.INFO.${stream}.*`,
        `$JS.API.CONSUMER.DELETE.${stream}.*`,
        `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
      );
      for (const name of durableConsumersOn(stream)) {
        jsDeny.push(
          `$JS.API.CONSUMER.*.${stream}.${name}`,
          `$JS.API.CONSUMER.CREATE.${stream}.${name}.>`,
          `$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`,
        );
      }
    }
  }

  return {
    pub: { allow: [...pub, ...jsPublish].sort(), deny: jsDeny.sort() },
    sub: { allow: [...sub].sort(), deny: [] },
    resp: served.length > 0 ? { max: 1, ttl: 0 } : undefined,
  };
}

/**
 * The template of the IOA account's scoped signing key for role "agent". nats-server 2.9 expands `{{name()}}` to
 * the user JWT's `name` claim (the agent id) when the user connects (verified in trust-provisioning.e2e-spec.ts).
 * An agent acts only on its own `ioa.agent.<id>.…` subjects (the services serving those take the actor from the
 * subject), asks the two read-only platform questions an agent needs, and reads only its own subjects and inbox.
 * allow_responses (one reply) lets it answer what is delivered to it (a task assignment is a request); it gives no
 * right to read anyone's replies. No `$JS.API.>`, no platform events, no queue group of a service.
 */
export const AGENT_ROLE = 'agent';
export function agentPermissionTemplate(): NatsPermissions {
  return {
    pub: {
      allow: ['ioa.agent.{{name()}}.>', SearchAgentsV1.subject, GetAgentV1.subject],
      deny: [],
    },
    sub: { allow: ['ioa.agent.{{name()}}.>', '_INBOX.{{name()}}.>'], deny: [] },
    resp: { max: 1, ttl: 0 },
  };
}

/** Every event subject the catalog says a service publishes (for the "only the owner publishes" checks). */
export function ownedEvents(service: PlatformService, catalog: readonly AnyContract[] = ALL_CONTRACTS): string[] {
  return catalog
    .filter((contract) => contract.kind === 'event' && contract.owner === service)
    .map((contract) => contract.subject);
}
