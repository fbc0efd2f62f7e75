import { ArrayMaxSize, IsArray, IsDateString, IsIn, IsInt, IsOptional, IsString, IsUUID } from 'class-validator';
import { requestContract } from '../common/contract.js';
import { ListPageV1Request } from '../common/list-page.v1.js';
import { IsNested } from '../common/validation.js';
import { GROUP_STATES, GroupMemberV1, type GroupState } from './chat.v1.js';

/** A group chat as a list shows it: its state and members, without the task ledger. @since 1 */
export class GroupSummaryV1 {
  @IsUUID()
  id: string;

  @IsUUID()
  goalId: string;

  @IsString()
  goal: string;

  @IsIn(GROUP_STATES)
  state: GroupState;

  @IsNested(() => GroupMemberV1, { each: true })
  members: GroupMemberV1[];

  /** The seq of the group's newest message (0 before the first). */
  @IsInt()
  lastSeq: number;

  @IsInt()
  turn: number;

  @IsInt()
  maxTurns: number;

  @IsDateString()
  createdAt: string;

  @IsDateString()
  updatedAt: string;
}

/** @since 1 */
export class ListGroupsV1Request extends ListPageV1Request {
  /** Only groups in one of these states (all states when absent). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(GROUP_STATES.length)
  @IsIn(GROUP_STATES, { each: true })
  state?: GroupState[];

  /** Only the group of this goal. */
  @IsOptional()
  @IsUUID()
  goalId?: string;
}

/** @since 1 */
export class ListGroupsV1Response {
  /** Newest first (by creation time, then id). */
  @IsNested(() => GroupSummaryV1, { each: true })
  items: GroupSummaryV1[];

  /** Pass back as `cursor` for the next page; absent on the last page. */
  @IsOptional()
  @IsString()
  nextCursor?: string;
}

export const ListGroupsV1 = requestContract<ListGroupsV1Request, ListGroupsV1Response>({
  subject: 'ioa.chat.group.list.v1',
  owner: 'chat',
  request: ListGroupsV1Request,
  response: ListGroupsV1Response,
  summary: 'Group chats newest first, with state, members and last seq; filter by state or goal, page with a cursor.',
  since: '1',
});
