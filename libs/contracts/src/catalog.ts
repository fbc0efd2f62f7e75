import type { AnyContract } from './common/contract.js';
import { AssignTaskV1, TaskCanceledV1 } from './agent/agent.v1.js';
import { AGENT_ACTION_CONTRACTS } from './agent/agent-actions.v1.js';
import { MessagePostedToMemberV1, TurnGrantedToAgentV1 } from './agent/agent-deliveries.v1.js';
import {
  DeregisterAdaptedAgentV1,
  GetAdaptedAgentV1,
  RegisterAdaptedAgentV1,
  UpdateAdaptedAgentV1,
} from './adapters/adapters.v1.js';
import {
  CloseGroupV1,
  CreateGroupV1,
  ForceConclusionV1,
  GetGroupV1,
  GroupStateChangedV1,
  ListMessagesV1,
  MessagePostedV1,
  PostUserMessageV1,
  ProposeMoveV1,
  TasksAssignedV1,
  TurnGrantedV1,
} from './chat/chat.v1.js';
import {
  CancelGoalV1,
  GetGoalV1,
  GoalEventAppendedV1,
  GoalStatusChangedV1,
  ListGoalEventsV1,
  PostGoalMessageV1,
  SubmitGoalV1,
} from './scheduler/goals.v1.js';
import { GetTaskV1, ReportTaskV1, TaskUpdatedV1 } from './scheduler/tasks.v1.js';
import { ListGoalsV1 } from './scheduler/goal-list.v1.js';
import { ListGroupsV1 } from './chat/group-list.v1.js';
import {
  AdaptersHealthV1,
  AgentHostHealthV1,
  ChatHealthV1,
  DiscoveryHealthV1,
  RegistryHealthV1,
  SchedulerHealthV1,
} from './common/health.v1.js';
import {
  AgentHostListDeadLettersV1,
  AgentHostReplayDeadLetterV1,
  ChatListDeadLettersV1,
  ChatReplayDeadLetterV1,
  DiscoveryListDeadLettersV1,
  DiscoveryReplayDeadLetterV1,
  RegistryListDeadLettersV1,
  RegistryReplayDeadLetterV1,
  SchedulerListDeadLettersV1,
  SchedulerReplayDeadLetterV1,
} from './common/dead-letters.v1.js';
import { AgentIndexedV1, SearchAgentsV1 } from './discovery/discovery.v1.js';
import {
  AgentCameOnlineV1,
  AgentDeregisteredV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentWentOfflineV1,
  DeregisterAgentV1,
  GetAgentV1,
  HeartbeatAgentV1,
  ListAgentsV1,
  RegisterAgentV1,
  UpdateAgentV1,
} from './registry/registry.v1.js';
import { GetAgentIdentityV1, IssueAgentIdentityV1, RevokeAgentIdentityV1 } from './registry/identity.v1.js';

/**
 * Every published contract, in one list: the JSON Schema / AsyncAPI generator, the JetStream stream setup and the
 * "every subject answers malformed input" test all walk it, so a contract missing here is a contract unchecked.
 */
export const ALL_CONTRACTS: readonly AnyContract[] = [
  RegistryHealthV1,
  DiscoveryHealthV1,
  ChatHealthV1,
  SchedulerHealthV1,
  AgentHostHealthV1,
  RegistryListDeadLettersV1,
  RegistryReplayDeadLetterV1,
  DiscoveryListDeadLettersV1,
  DiscoveryReplayDeadLetterV1,
  ChatListDeadLettersV1,
  ChatReplayDeadLetterV1,
  SchedulerListDeadLettersV1,
  SchedulerReplayDeadLetterV1,
  AgentHostListDeadLettersV1,
  AgentHostReplayDeadLetterV1,
  RegisterAgentV1,
  UpdateAgentV1,
  DeregisterAgentV1,
  GetAgentV1,
  ListAgentsV1,
  HeartbeatAgentV1,
  AgentRegisteredV1,
  AgentUpdatedV1,
  AgentDeregisteredV1,
  AgentWentOfflineV1,
  AgentCameOnlineV1,
  IssueAgentIdentityV1,
  GetAgentIdentityV1,
  RevokeAgentIdentityV1,
  SearchAgentsV1,
  AgentIndexedV1,
  CreateGroupV1,
  GetGroupV1,
  ListMessagesV1,
  ListGroupsV1,
  ProposeMoveV1,
  PostUserMessageV1,
  ForceConclusionV1,
  CloseGroupV1,
  MessagePostedV1,
  GroupStateChangedV1,
  TurnGrantedV1,
  TasksAssignedV1,
  SubmitGoalV1,
  GetGoalV1,
  CancelGoalV1,
  PostGoalMessageV1,
  ListGoalEventsV1,
  ListGoalsV1,
  GoalEventAppendedV1,
  GoalStatusChangedV1,
  ReportTaskV1,
  GetTaskV1,
  TaskUpdatedV1,
  AssignTaskV1,
  TaskCanceledV1,
  ...AGENT_ACTION_CONTRACTS,
  TurnGrantedToAgentV1,
  MessagePostedToMemberV1,
  AdaptersHealthV1,
  RegisterAdaptedAgentV1,
  UpdateAdaptedAgentV1,
  DeregisterAdaptedAgentV1,
  GetAdaptedAgentV1,
] as readonly AnyContract[];
