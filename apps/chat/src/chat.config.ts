import { registerAs, type ConfigType } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment variables of the chat service, validated at boot so a typo fails the start, not a sweep later. */
export class ChatEnvironment {
  /** How often the sweeper looks for turns whose deadline has passed. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(60_000)
  CHAT_TURN_TIMEOUT_SWEEP_MS?: number;

  /** How many recent messages a turn grant carries (the speaker's bounded window of history). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  CHAT_TURN_WINDOW_MESSAGES?: number;

  /** At most this many characters of message content in a turn grant's window (the newest message always fits). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(500_000)
  CHAT_TURN_WINDOW_CHARS?: number;

  /** How often events left in the outbox (a failed publish, a crashed replica) are published again. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(600_000)
  CHAT_OUTBOX_RETRY_MS?: number;
}

export const DEFAULT_TURN_TIMEOUT_SWEEP_MS = 250;
export const DEFAULT_TURN_WINDOW_MESSAGES = 12;
export const DEFAULT_TURN_WINDOW_CHARS = 48_000;
export const DEFAULT_OUTBOX_RETRY_MS = 1000;

export const chatConfig = registerAs('chat', () => {
  validateEnvironment(process.env, ChatEnvironment);
  return {
    turnTimeoutSweepMs: Number(process.env.CHAT_TURN_TIMEOUT_SWEEP_MS ?? DEFAULT_TURN_TIMEOUT_SWEEP_MS),
    turnWindowMessages: Number(process.env.CHAT_TURN_WINDOW_MESSAGES ?? DEFAULT_TURN_WINDOW_MESSAGES),
    turnWindowChars: Number(process.env.CHAT_TURN_WINDOW_CHARS ?? DEFAULT_TURN_WINDOW_CHARS),
    outboxRetryMs: Number(process.env.CHAT_OUTBOX_RETRY_MS ?? DEFAULT_OUTBOX_RETRY_MS),
  };
});

export type ChatConfig = ConfigType<typeof chatConfig>;
