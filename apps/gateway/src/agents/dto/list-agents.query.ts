import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsInt,
  IsNumber,
  IsOptional,
  Max,
  Min,
  ValidateBy,
  type ValidationArguments,
} from 'class-validator';
import { IsText } from '@ioa/contracts';

/**
 * Parameters of a plain listing and parameters of a semantic search share one route. Mixing them is rejected with
 * a message rather than silently ignored, so a client never wonders why `limit` had no effect on a search.
 */
function AppliesWithQuery(applies: boolean): PropertyDecorator {
  return ValidateBy({
    name: applies ? 'onlyWithQuery' : 'onlyWithoutQuery',
    validator: {
      validate: (_value: unknown, args?: ValidationArguments) =>
        ((args?.object as ListAgentsQueryDto | undefined)?.q !== undefined) === applies,
      defaultMessage: (args?: ValidationArguments) =>
        applies
          ? `${args?.property} refines a semantic search and needs q`
          : `${args?.property} pages the plain list; a search (q) returns its best topK matches instead`,
    },
  });
}

/** Query strings carry text: `true`/`false` become booleans, anything else stays text and fails validation. */
function toBoolean({ value }: { value: unknown }): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/** `tags=a,b` and `tags=a&tags=b` both mean `['a', 'b']`. */
function toList({ value }: { value: unknown }): unknown {
  const values = Array.isArray(value) ? value : [value];
  return values
    .flatMap((entry) => String(entry).split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** `GET /v1/agents`: a paged list from the registry, or a ranked semantic search through discovery when `q` is set. */
export class ListAgentsQueryDto {
  @ApiPropertyOptional({
    description:
      'What the agent should be able to do, in natural language. Switches to a semantic search ranked by score.',
    maxLength: 1000,
    example: 'summarise legal contracts in French',
  })
  @IsOptional()
  @IsText(1000)
  q?: string;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'Presence. Listing: true = online agents only, false = offline agents only, absent = all. ' +
      'Search (q): true (the default) = online agents only, false = online and offline agents.',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'online must be true or false' })
  online?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 500,
    default: 100,
    description: 'Listing only: page size.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  @AppliesWithQuery(false)
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    default: 0,
    description: 'Listing only: agents to skip.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @AppliesWithQuery(false)
  offset?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 10,
    description: 'Search only: number of matches.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  @AppliesWithQuery(true)
  topK?: number;

  @ApiPropertyOptional({
    minimum: -1,
    maximum: 1,
    default: 0,
    description: 'Search only: cosine similarity below which a match is dropped.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-1)
  @Max(1)
  @AppliesWithQuery(true)
  minScore?: number;

  @ApiPropertyOptional({
    type: String,
    description: 'Search only: comma-separated skill tags; an agent needs a skill with at least one of them.',
    example: 'legal,translation',
  })
  @IsOptional()
  @Transform(toList)
  @ArrayMaxSize(20)
  @IsText(40, { each: true })
  @AppliesWithQuery(true)
  tags?: string[];
}
