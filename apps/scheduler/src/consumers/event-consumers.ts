import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { AgentWentOfflineV1, GroupStateChangedV1, MessagePostedV1, TasksAssignedV1 } from '@ioa/contracts';
import { EventBus, on } from '@ioa/messaging';
import { GroupEventsService } from '../goals/group-events.service.js';
import { TasksService } from '../tasks/tasks.service.js';

/** Durable consumer name: replicas share it, and a restart resumes where the last one stopped. */
export const SCHEDULER_DURABLE = 'scheduler';

/**
 * The scheduler's JetStream consumers: one durable consumer per subject (`scheduler-chat-message-posted-v1`…), whose
 * events are handled one at a time — which is why the handlers only touch the database and leave talking to agents
 * to the background dispatcher. A handler that keeps failing ends as a dead letter (see docs/operations.md).
 */
@Injectable()
export class EventConsumers implements OnApplicationBootstrap {
  constructor(
    private readonly events: EventBus,
    private readonly groupEvents: GroupEventsService,
    private readonly tasks: TasksService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.events.subscribe({
      durable: SCHEDULER_DURABLE,
      handlers: [
        on(TasksAssignedV1, (event) => this.tasks.onTasksAssigned(event)),
        on(MessagePostedV1, (event) => this.groupEvents.onMessagePosted(event)),
        on(GroupStateChangedV1, (event) => this.groupEvents.onGroupStateChanged(event)),
        on(AgentWentOfflineV1, (event) => this.tasks.onAgentOffline(event)),
      ],
    });
  }
}
