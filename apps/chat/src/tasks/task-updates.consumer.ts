import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { TaskUpdatedV1 } from '@ioa/contracts';
import { EventBus, on } from '@ioa/messaging';
import { ConversationService } from '../moves/conversation.service.js';

/**
 * Keeps each group's task ledger current from the scheduler's `TaskUpdatedV1` facts (durable consumer `chat`, so a
 * restart resumes where it stopped and replicas share the work). Redeliveries are harmless: the state machine
 * ignores an update whose state the ledger already has.
 */
@Injectable()
export class TaskUpdatesConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly events: EventBus,
    private readonly conversation: ConversationService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.events.subscribe({
      durable: 'chat',
      handlers: [on(TaskUpdatedV1, (event) => this.conversation.applyTaskUpdate(event.task))],
    });
  }
}
