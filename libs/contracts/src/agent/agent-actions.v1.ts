import { requestContract } from '../common/contract.js';
import {
  DeregisterAgentV1Request,
  DeregisterAgentV1Response,
  HeartbeatAgentV1Request,
  HeartbeatAgentV1Response,
  RegisterAgentV1Request,
  RegisterAgentV1Response,
  UpdateAgentV1Request,
} from '../registry/registry.v1.js';
import { AgentCardV1 } from '../registry/agent-card.v1.js';
import {
  GetGroupV1Request,
  GroupV1,
  ListMessagesV1Request,
  ListMessagesV1Response,
  ProposeMoveV1Request,
  ProposeMoveV1Response,
} from '../chat/chat.v1.js';
import { ReportTaskV1Request, TaskV1 } from '../scheduler/tasks.v1.js';

/*
 * What an agent does on the network, on subjects that name it: `ioa.agent.<its id>.<action>.v1`. An agent's NATS
 * identity may publish only under its own `ioa.agent.<id>.` (the broker enforces it), so the subject, not a payload
 * field, says who acts. The payloads are those of the services' own subjects; a field that names the actor
 * (`speakerId`, `agentId`, a heartbeat's `id`) may be left out, and is refused with FORBIDDEN when it names another
 * agent. The services' subjects (`ioa.registry.agent.heartbeat.v1`…) stay for the platform's own services, which act
 * for the agents they host; the broker refuses them to agents.
 */

const ACTING_AGENT = 2;

/**
 * Register (or re-register) the card of the agent the subject names: the card gets that id. With an identity issued
 * by the registry, `owner` must be the identity's account; the same name under another id is a CONFLICT.
 * @since 1
 */
export const RegisterOwnAgentV1 = requestContract<RegisterAgentV1Request, RegisterAgentV1Response>({
  subject: 'ioa.agent.*.register.v1',
  owner: 'registry',
  request: RegisterAgentV1Request,
  response: RegisterAgentV1Response,
  summary: "An agent registers its own card, under its identity's id.",
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: [] },
});

/** @since 1 */
export const HeartbeatOwnAgentV1 = requestContract<HeartbeatAgentV1Request, HeartbeatAgentV1Response>({
  subject: 'ioa.agent.*.heartbeat.v1',
  owner: 'registry',
  request: HeartbeatAgentV1Request,
  response: HeartbeatAgentV1Response,
  summary: 'An agent says it is alive (`id` may be left out).',
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: ['id'] },
});

/** @since 1 */
export const UpdateOwnAgentV1 = requestContract<UpdateAgentV1Request, AgentCardV1>({
  subject: 'ioa.agent.*.update.v1',
  owner: 'registry',
  request: UpdateAgentV1Request,
  response: AgentCardV1,
  summary: 'An agent updates its own card (`id` may be left out; `owner` must be its owner).',
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: ['id'] },
});

/** @since 1 */
export const DeregisterOwnAgentV1 = requestContract<DeregisterAgentV1Request, DeregisterAgentV1Response>({
  subject: 'ioa.agent.*.deregister.v1',
  owner: 'registry',
  request: DeregisterAgentV1Request,
  response: DeregisterAgentV1Response,
  summary: 'An agent leaves the network for good (`id` may be left out; `owner` must be its owner).',
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: ['id'] },
});

/** @since 1 */
export const ProposeOwnMoveV1 = requestContract<ProposeMoveV1Request, ProposeMoveV1Response>({
  subject: 'ioa.agent.*.move.propose.v1',
  owner: 'chat',
  request: ProposeMoveV1Request,
  response: ProposeMoveV1Response,
  summary: 'The turn holder proposes a move in its group (`speakerId` may be left out).',
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: ['speakerId'] },
});

/** @since 1 */
export const ListOwnGroupMessagesV1 = requestContract<ListMessagesV1Request, ListMessagesV1Response>({
  subject: 'ioa.agent.*.group.messages.list.v1',
  owner: 'chat',
  request: ListMessagesV1Request,
  response: ListMessagesV1Response,
  summary: "A page of the messages of a group the agent is a member of (FORBIDDEN for others' groups).",
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: [] },
});

/** @since 1 */
export const GetOwnGroupV1 = requestContract<GetGroupV1Request, GroupV1>({
  subject: 'ioa.agent.*.group.get.v1',
  owner: 'chat',
  request: GetGroupV1Request,
  response: GroupV1,
  summary: 'The state, members, turn and task ledger of a group the agent is a member of.',
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: [] },
});

/** @since 1 */
export const ReportOwnTaskV1 = requestContract<ReportTaskV1Request, TaskV1>({
  subject: 'ioa.agent.*.task.report.v1',
  owner: 'scheduler',
  request: ReportTaskV1Request,
  response: TaskV1,
  summary: 'The assignee reports progress or the outcome of a task assigned to it (`agentId` may be left out).',
  since: '1',
  actor: { subjectToken: ACTING_AGENT, payloadFields: ['agentId'] },
});

/** Every subject on which an agent acts as itself. */
export const AGENT_ACTION_CONTRACTS = [
  RegisterOwnAgentV1,
  HeartbeatOwnAgentV1,
  UpdateOwnAgentV1,
  DeregisterOwnAgentV1,
  ProposeOwnMoveV1,
  ListOwnGroupMessagesV1,
  GetOwnGroupV1,
  ReportOwnTaskV1,
] as const;
