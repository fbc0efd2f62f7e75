import { ApiProperty } from '@nestjs/swagger';

/** What an agent needs to connect: its id, its JWT (with its own seed, never sent here), where, and its inbox. */
export class AgentCredentialsResponseDto {
  @ApiProperty({
    format: 'uuid',
    description: 'The agent id: the JWT is named by it, and it is the `<id>` of its subjects.',
  })
  agentId: string;

  @ApiProperty({ description: 'The account that owns the agent (and may rotate or revoke it).' })
  accountId: string;

  @ApiProperty({
    description:
      "The NATS user JWT. With the agent's own seed it makes a `.creds` file, or goes to a client's JWT authenticator.",
  })
  jwt: string;

  @ApiProperty({ format: 'date-time', description: 'When the JWT expires: issue again (same key) before then.' })
  expiresAt: string;

  @ApiProperty({ description: 'True for a new agent id; false when an existing identity was rotated or renewed.' })
  created: boolean;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The key this call revoked (a rotation): the broker refuses it from now on.',
  })
  revokedPublicKey: string | null;

  @ApiProperty({ type: [String], example: ['nats://127.0.0.1:4222'], description: 'Where to connect.' })
  natsUrls: string[];

  @ApiProperty({
    example: '_INBOX.8a3c7f5e-0c2d-4b8e-9d55-0f1f3f6b2a10',
    description: 'The inbox prefix to connect with: replies reach the agent only under it.',
  })
  inboxPrefix: string;
}
