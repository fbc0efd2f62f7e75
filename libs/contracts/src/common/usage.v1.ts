import { IsInt, Min } from 'class-validator';

/** Model usage attached to a move or a task report, so budgets and per-agent accounting add up. @since 1 */
export class ModelUsageV1 {
  @IsInt()
  @Min(0)
  promptTokens: number = 0;

  @IsInt()
  @Min(0)
  completionTokens: number = 0;

  @IsInt()
  @Min(0)
  modelCalls: number = 0;
}
