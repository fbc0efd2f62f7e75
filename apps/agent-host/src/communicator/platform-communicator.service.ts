import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import PQueue from 'p-queue';
import {
  ContractError,
  GetGroupV1,
  type GroupV1,
  ProposeMoveV1,
  TurnGrantedV1,
  type AgentCardV1,
  type ChatMessageV1,
  type GroupMemberV1,
  type ModelUsageV1,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { ContractClient, EventBus, on } from '@ioa/messaging';
import {
  addUsage,
  callFor,
  ConclusionPurpose,
  emptyUsage,
  LANGUAGE_MODEL,
  ModelDecisionError,
  truncate,
  TurnMovePurpose,
  UsageMeter,
  type AgentProfile,
  type ConversationMessage,
  type LanguageModel,
  type TurnMoveInput,
  type TurnMoveOutput,
} from '@ioa/llm';
import { agentHostConfig, type AgentHostConfig } from '../agent-host.config.js';
import type { OwnedWork } from '../ownership/owned-work.repository.js';
import { WorkLeaseService } from '../ownership/work-lease.service.js';
import { AgentCardCache } from './agent-card.cache.js';

/** Durable consumer name of the communicator on the chat stream (replicas share it). */
export const COMMUNICATOR_DURABLE = 'agent-host';
/** Codes by which the chat refuses a move; the reason is fed back to the model. */
const REJECTIONS = new Set(['INVALID_STATE', 'FORBIDDEN', 'VALIDATION_FAILED']);
const MESSAGE_CHARS = 4000;
/** The scope of turns in the ownership table: any replica running the communicator may take one over. */
const TURN_SCOPE = 'communicator';

function turnKey(event: Pick<TurnGrantedV1Event, 'groupId' | 'turn'>): string {
  return `${event.groupId}:${event.turn}`;
}

export type TurnOutcome =
  | { kind: 'moved'; type: TurnMoveOutput['type']; attempts: number; usage: ModelUsageV1 }
  | { kind: 'skipped'; reason: string }
  | { kind: 'dropped'; reason: string };

/** Card → what a model sees of an agent. */
export function profileOf(member: GroupMemberV1, card: AgentCardV1 | undefined): AgentProfile {
  return {
    agentId: member.agentId,
    name: card?.name ?? member.name,
    description: card?.description,
    skills: (card?.skills ?? []).map((skill) => ({
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
    })),
  };
}

function conversationOf(message: ChatMessageV1): ConversationMessage {
  return {
    seq: message.seq,
    type: message.type,
    senderId: message.senderId,
    senderName: message.senderName,
    content: truncate(message.content, MESSAGE_CHARS),
    nextSpeaker: message.nextSpeaker,
  };
}

/**
 * The platform communicator: the voice in group chats of every agent whose card does not say
 * `metadata.communicator === 'self'` (IoA's client-side LLM, made a service). On `TurnGrantedV1` it decides the
 * move with the model (`turn.move`, from the event's bounded window and task ledger), writes the conclusion with
 * one more call (`conclusion`) when it concludes, and proposes it with the usage spent. A refused move is retried
 * with the refusal fed back (at most `moveRetries` times), unless the turn has moved on, in which case it is
 * dropped. Turns are handled in the background, many at once, never waiting on task work. A grant is acknowledged
 * only once the turn is owned durably (a row in `agent_host.owned_work`); a turn whose replica died is taken over
 * through its lease (`WorkLeaseService`) and taken again, and the chat refuses a move for a turn that moved on.
 */
@Injectable()
export class PlatformCommunicatorService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PlatformCommunicatorService.name);
  private readonly turns: PQueue;
  private readonly inFlight = new Set<string>();
  private stopping = false;
  readonly usage = new UsageMeter();

  constructor(
    private readonly events: EventBus,
    private readonly client: ContractClient,
    private readonly cards: AgentCardCache,
    @Inject(LANGUAGE_MODEL) private readonly model: LanguageModel,
    @Inject(agentHostConfig.KEY) private readonly config: AgentHostConfig,
    private readonly lease: WorkLeaseService,
  ) {
    this.turns = new PQueue({ concurrency: config.communicator.turnConcurrency });
  }

  onModuleInit(): void {
    this.lease.resumeWith(
      'turn',
      () => (this.config.communicator.enabled ? [TURN_SCOPE] : []),
      (work) => this.resume(work),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.communicator.enabled) return;
    await this.events.subscribe({
      durable: COMMUNICATOR_DURABLE,
      handlers: [on(TurnGrantedV1, (event) => this.accept(event))],
    });
  }

  /**
   * Owns the turn durably, queues it and returns, so the consumer acknowledges the grant and moves on to the next
   * group's event. When the row cannot be written this throws, and the grant is delivered again.
   */
  async accept(event: TurnGrantedV1Event): Promise<void> {
    const key = turnKey(event);
    if (this.inFlight.has(key)) return; // a redelivery of a turn being handled
    // Already owned: by a replica taking it now, or by a dead one whose lease hands it to a live one.
    if (await this.lease.own('turn', key, TURN_SCOPE, event)) this.start(event);
  }

  /** Takes a turn again that a replica (or this one, before a restart) held when it died. */
  private resume(work: OwnedWork): void {
    const event = work.payload as TurnGrantedV1Event;
    if (this.inFlight.has(work.workKey) || this.stopping) return;
    if (work.claims > this.config.ownership.maxClaims) {
      this.logger.warn(
        `Turn ${event.turn} of group ${event.groupId} dropped: taken on ${work.claims - 1} times without finishing`,
      );
      void this.lease.release('turn', work.workKey);
      return;
    }
    this.start(event);
  }

  private start(event: TurnGrantedV1Event): void {
    const key = turnKey(event);
    this.inFlight.add(key);
    void this.turns.add(async () => {
      let finished = false;
      try {
        const outcome = await this.handleTurn(event);
        finished = true;
        if (outcome.kind === 'dropped')
          this.logger.log(`Turn ${event.turn} of group ${event.groupId} dropped: ${outcome.reason}`);
      } catch (error) {
        // Not finished: handed back, so the next sweep (here or on a replica) takes it again, as long as the chat has
        // not moved on and the claims count allows.
        this.logger.warn(`Turn ${event.turn} of group ${event.groupId} failed: ${(error as Error).message}`);
      } finally {
        this.inFlight.delete(key);
        if (finished) await this.lease.release('turn', key);
        else await this.lease.handBack('turn', key);
      }
    });
  }

  onApplicationShutdown(): void {
    this.stopping = true;
  }

  async handleTurn(event: TurnGrantedV1Event): Promise<TurnOutcome> {
    if (Date.parse(event.deadline) <= Date.now()) return { kind: 'dropped', reason: 'its deadline has passed' };
    const speakerCard = await this.cards.get(event.speakerId);
    if (!speakerCard) return { kind: 'dropped', reason: `speaker ${event.speakerId} is not registered` };
    if (speakerCard.metadata?.communicator === 'self')
      return { kind: 'skipped', reason: 'the agent speaks for itself' };

    const cards = await Promise.all(
      event.members.map((member) => this.cards.get(member.agentId).catch(() => undefined)),
    );
    const members = event.members.map((member, index) => profileOf(member, cards[index]));
    const self =
      members.find((member) => member.agentId === event.speakerId) ??
      profileOf({ agentId: event.speakerId, name: speakerCard.name }, speakerCard);
    const input: TurnMoveInput = {
      goal: event.goal,
      self,
      leaderId: event.leaderId,
      turn: event.turn,
      maxTurns: event.maxTurns,
      mustConclude: event.mustConclude,
      reason: event.reason,
      members,
      recentMessages: event.recentMessages.map(conversationOf),
      tasks: event.tasks,
    };

    let usage = emptyUsage();
    const attempts = this.config.communicator.moveRetries + 1;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let move: TurnMoveOutput;
      try {
        const decision = await this.model.decide(callFor(TurnMovePurpose, input));
        usage = addUsage(usage, decision.usage);
        move = decision.output;
        if (move.type === 'conclude') {
          const written = await this.model.decide(
            callFor(ConclusionPurpose, {
              goal: event.goal,
              self,
              members,
              recentMessages: input.recentMessages,
              tasks: event.tasks,
              reason: event.reason,
              forced: event.mustConclude,
            }),
          );
          usage = addUsage(usage, written.usage);
          move = { ...move, content: written.output.conclusion };
        }
      } catch (error) {
        if (error instanceof ModelDecisionError) usage = addUsage(usage, error.usage);
        this.usage.record(usage, { goalId: event.goalId, agentId: event.speakerId });
        return { kind: 'dropped', reason: `the model gave no move: ${(error as Error).message}` };
      }
      try {
        await this.client.request(ProposeMoveV1, {
          groupId: event.groupId,
          speakerId: event.speakerId,
          turn: event.turn,
          type: move.type,
          content: move.content,
          nextSpeaker: move.nextSpeaker,
          tasks: move.tasks,
          awaitTaskIds: move.awaitTaskIds,
          usage,
        });
        this.usage.record(usage, { goalId: event.goalId, agentId: event.speakerId });
        return { kind: 'moved', type: move.type, attempts: attempt, usage };
      } catch (error) {
        const refusal = error instanceof ContractError ? error : new ContractError('INTERNAL', String(error));
        const group = await this.currentGroup(event);
        if (group && (group.turn !== event.turn || group.currentSpeaker !== event.speakerId)) {
          this.usage.record(usage, { goalId: event.goalId, agentId: event.speakerId });
          return { kind: 'dropped', reason: `the turn moved on (${refusal.message})` };
        }
        // Retry against the ledger as it is now: a move is often refused because a task finished meanwhile.
        if (group) input.tasks = group.tasks;
        if (REJECTIONS.has(refusal.code)) {
          const details = refusal.details === undefined ? '' : ` Details: ${JSON.stringify(refusal.details)}`;
          input.rejection = truncate(
            `Your ${move.type} move was rejected (${refusal.code}): ${refusal.message}.${details}`,
            4000,
          );
        }
        this.logger.log(
          `Move ${move.type} for turn ${event.turn} of group ${event.groupId} refused (attempt ${attempt}): ${refusal.message}`,
        );
      }
    }
    this.usage.record(usage, { goalId: event.goalId, agentId: event.speakerId });
    return { kind: 'dropped', reason: `no acceptable move after ${attempts} attempts` };
  }

  /** The group as the chat sees it now, or undefined when it cannot tell (the chat refuses a stale move anyway). */
  private async currentGroup(event: TurnGrantedV1Event): Promise<GroupV1 | undefined> {
    try {
      return await this.client.request(GetGroupV1, { groupId: event.groupId });
    } catch {
      return undefined;
    }
  }
}
