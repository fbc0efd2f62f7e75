import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { IsText, ToNumberIfNumeric } from '@ioa/contracts';

// Numbers: a JSON body carries numbers (a `true` is refused, not read as 1); numeric strings are still accepted.
// The bounds below are those of `SubmitGoalV1Request`: the gateway rejects what the scheduler would reject, without
// a round trip, and with the same messages. (The contract class itself is not the HTTP body: it also carries
// `parentTaskId`, which only a task owner forming a sub-team may set.)

export class GoalBudgetDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Model tokens (prompt + completion) the goal may spend before its team must conclude.',
    example: 20000,
  })
  @IsOptional()
  @ToNumberIfNumeric()
  @IsInt({ message: 'budget.tokens must be an integer' })
  @Min(1, { message: 'budget.tokens must not be less than 1' })
  tokens?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 86400,
    description: 'Wall-clock seconds the goal may run before its team must conclude.',
    example: 300,
  })
  @IsOptional()
  @ToNumberIfNumeric()
  @IsInt({ message: 'budget.seconds must be an integer' })
  @Min(1, { message: 'budget.seconds must not be less than 1' })
  @Max(86400, { message: 'budget.seconds must not be greater than 86400' })
  seconds?: number;
}

/** `POST /v1/goals`. */
export class SubmitGoalRequestDto {
  @ApiProperty({
    maxLength: 8000,
    description: 'What the team should achieve, in natural language.',
    example: 'Run `console.log(6 * 7)`, then find in the documents how agent presence works, and write a short report.',
  })
  @IsText(8000)
  goal: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 8,
    description:
      'Agent names or ids. Skips autonomous team formation: these agents form the team, the first one leads. ' +
      'Absent or empty: the platform finds the team itself.',
    example: ['code-runner', 'doc-researcher', 'writer'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @IsText(64, { each: true })
  members?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 2,
    maximum: 200,
    default: 12,
    description: 'Turns of conversation before the leader must conclude.',
  })
  @IsOptional()
  @ToNumberIfNumeric()
  @IsInt()
  @Min(2)
  @Max(200)
  maxTurns?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 5,
    default: 1,
    description: 'How deep sub-teams may nest (0 = no sub-teams).',
  })
  @IsOptional()
  @ToNumberIfNumeric()
  @IsInt()
  @Min(0)
  @Max(5)
  maxDepth?: number;

  @ApiPropertyOptional({ type: GoalBudgetDto, description: 'Limits; reaching one brings the goal to a conclusion.' })
  @IsOptional()
  @IsObject({ message: 'budget must be an object' })
  @ValidateNested()
  @Type(() => GoalBudgetDto)
  budget?: GoalBudgetDto;
}
