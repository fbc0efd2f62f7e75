import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { In, Not } from 'typeorm';
import { GetAgentV1, GetGroupV1, ListMessagesV1, type TaskBriefV1 } from '@ioa/contracts';
import { ContractClient } from '@ioa/messaging';
import { truncate, type AgentProfile, type ConversationMessage, type TaskResultView } from '@ioa/llm';
import type { GoalEntity } from '../goals/goal.entity.js';
import { Transactions } from '@ioa/database';
import { Planner, PlanningFailedError, type Planned } from '../planning/planner.js';
import { schedulerConfig } from '../scheduler.config.js';
import { TaskEntity } from './task.entity.js';

const EARLIER_RESULTS = 12;

/**
 * Before a task runs, it becomes a self-contained brief (IoA's task rewrite): the model reads the goal, the draft,
 * the recent chat window and the goal's earlier results, and writes abstract, inputs, description and completion
 * criteria. Context that cannot be fetched (chat briefly away) is left out rather than delaying the task.
 */
@Injectable()
export class TaskBriefs {
  private readonly logger = new Logger(TaskBriefs.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly planner: Planner,
    private readonly client: ContractClient,
    @Inject(schedulerConfig.KEY) private readonly config: ConfigType<typeof schedulerConfig>,
  ) {}

  async write(task: TaskEntity, goal: GoalEntity): Promise<Planned<TaskBriefV1>> {
    const [recentMessages, earlierResults, assignee] = await Promise.all([
      this.recentMessages(task.groupId),
      this.earlierResults(task),
      this.profile(task.assigneeId, task.assigneeName),
    ]);
    try {
      return await this.planner.writeBrief({
        goal: truncate(goal.goal, 8000),
        description: truncate(task.description, 8000),
        abstract: truncate(task.abstract, 300),
        assignee,
        recentMessages,
        earlierResults,
      });
    } catch (error) {
      if (!(error instanceof PlanningFailedError)) throw error;
      // The task still runs: its owner gets the draft as it was written, which is what the group agreed on.
      this.logger.warn(`Task ${task.id}: ${error.message}; sending the draft as the brief`);
      return {
        value: {
          abstract: truncate(task.abstract, 300),
          inputs: '',
          description: truncate(task.description, 8000),
          completionCriteria: 'The outcome of the task as text, or a clear reason why it could not be done.',
        },
        usage: error.usage,
      };
    }
  }

  private async recentMessages(groupId: string): Promise<ConversationMessage[]> {
    const window = this.config.briefWindow;
    if (window === 0) return [];
    try {
      const group = await this.client.request(GetGroupV1, { groupId });
      const page = await this.client.request(ListMessagesV1, {
        groupId,
        afterSeq: Math.max(0, group.lastSeq - window),
        limit: window,
      });
      return page.items.map((message) => ({
        seq: message.seq,
        type: message.type,
        senderId: message.senderId,
        senderName: message.senderName,
        content: message.content,
        nextSpeaker: message.nextSpeaker,
      }));
    } catch (error) {
      this.logger.warn(`Recent messages of group ${groupId} unavailable for a brief: ${(error as Error)?.message}`);
      return [];
    }
  }

  private async earlierResults(task: TaskEntity): Promise<TaskResultView[]> {
    const finished = await this.transactions.manager.find(TaskEntity, {
      where: { goalId: task.goalId, id: Not(task.id), state: In(['completed', 'failed']) },
      order: { completedAt: 'DESC' },
      take: EARLIER_RESULTS,
    });
    return finished.reverse().map((earlier) => ({
      abstract: truncate(earlier.abstract, 300),
      assigneeName: earlier.assigneeName,
      state: earlier.state,
      result: (earlier.state === 'completed' ? earlier.result : earlier.statusMessage) ?? undefined,
    }));
  }

  private async profile(agentId: string, name: string): Promise<AgentProfile> {
    try {
      const card = await this.client.request(GetAgentV1, { id: agentId });
      return {
        agentId,
        name: card.name,
        description: card.description,
        skills: card.skills.map((skill) => ({ name: skill.name, description: skill.description, tags: skill.tags })),
      };
    } catch {
      return { agentId, name, skills: [] };
    }
  }
}
