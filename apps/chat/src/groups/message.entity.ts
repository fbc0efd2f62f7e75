import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GroupTaskV1, MessageType, ModelUsageV1 } from '@ioa/contracts';

/** One message of a group (table `chat.messages`); `(group_id, seq)` is unique and gap-free. */
@Entity({ name: 'messages' })
export class MessageEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'group_id', type: 'uuid' })
  groupId: string;

  @Column({ type: 'integer' })
  seq: number;

  @Column({ type: 'varchar', length: 32 })
  type: MessageType;

  @Column({ name: 'sender_id', type: 'varchar', length: 64 })
  senderId: string;

  @Column({ name: 'sender_name', type: 'varchar', length: 100 })
  senderName: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ name: 'next_speaker', type: 'varchar', length: 64, nullable: true })
  nextSpeaker: string | null;

  /** The tasks the message is about, as the ledger showed them when it was written. */
  @Column({ type: 'jsonb', nullable: true })
  tasks: GroupTaskV1[] | null;

  @Column({ name: 'await_task_ids', type: 'jsonb', nullable: true })
  awaitTaskIds: string[] | null;

  @Column({ type: 'jsonb', nullable: true })
  usage: ModelUsageV1 | null;

  @Column({ type: 'integer' })
  turn: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
