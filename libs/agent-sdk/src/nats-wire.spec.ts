import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { ContractError, HeartbeatAgentV1Request, TaskCanceledV1Event } from '@ioa/contracts';
import { decodeJson, encodeJson, parsePayload, violationsOf } from './nats-wire.js';

describe('the agent-side wire', () => {
  it('reads an empty body as {} and refuses one that is not JSON with MALFORMED_PAYLOAD', () => {
    expect(decodeJson(new Uint8Array())).toEqual({});
    expect(decodeJson(encodeJson({ id: 1 }))).toEqual({ id: 1 });
    expect(() => decodeJson(new TextEncoder().encode('{"id": '))).toThrow(
      expect.objectContaining({ code: 'MALFORMED_PAYLOAD' }),
    );
  });

  it('lists every violation against the contract class, and none for unknown fields', async () => {
    expect(await violationsOf(HeartbeatAgentV1Request, { id: 'not-a-uuid' })).toEqual([
      { property: 'id', constraints: ['id must be a UUID'] },
    ]);
    expect(await violationsOf(HeartbeatAgentV1Request, [])).toEqual([
      { property: '(body)', constraints: ['the message body must be a JSON object'] },
    ]);
    const id = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expect(await violationsOf(HeartbeatAgentV1Request, { id, addedInVersion2: true })).toEqual([]);
  });

  it('parses a valid payload into its class, and refuses an invalid one with VALIDATION_FAILED and the details', async () => {
    const taskId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const parsed = await parsePayload(TaskCanceledV1Event, { taskId, reason: 'goal canceled' });
    expect(parsed).toBeInstanceOf(TaskCanceledV1Event);
    const refusal = await parsePayload(TaskCanceledV1Event, { taskId: 42 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ContractError);
    expect(refusal).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
    expect((refusal as ContractError).message).toContain('taskId');
  });
});
