import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A member of a group (table `chat.group_members`); `position` is the round-robin order of turn time-outs. */
@Entity({ name: 'group_members' })
export class GroupMemberEntity {
  @PrimaryColumn({ name: 'group_id', type: 'uuid' })
  groupId: string;

  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ type: 'varchar', length: 63 })
  name: string;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ type: 'integer' })
  position: number;
}
