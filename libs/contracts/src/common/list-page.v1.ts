import { IsOptional } from 'class-validator';
import { IsIntegerIn, IsText } from './validation.js';

/** Page sizes of the list subjects: 1-100 items, 20 unless asked. */
export const LIST_PAGE_MAX = 100;
export const LIST_PAGE_DEFAULT = 20;

/** The page part of a newest-first list request (see `list-cursor.ts`). @since 1 */
export class ListPageV1Request {
  /** The `nextCursor` of the previous page; absent for the newest items. */
  @IsOptional()
  @IsText(200)
  cursor?: string;

  @IsOptional()
  @IsIntegerIn(1, LIST_PAGE_MAX)
  limit: number = LIST_PAGE_DEFAULT;
}
