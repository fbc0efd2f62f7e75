import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import {
  ContractError,
  HeartbeatOwnAgentV1,
  ListOwnGroupMessagesV1,
  ProposeMoveV1,
  ProposeOwnMoveV1,
  ReportOwnTaskV1,
} from '@ioa/contracts';
import { actingAgentOf, actorContractOf, bodyWithActor } from './acting-agent.js';
import { NatsJsonDeserializer } from './nats-json.deserializer.js';
import { MalformedPayload, RefusedPayload } from './wire.js';

const AGENT_A = '7d3c2a7e-4d8e-4a55-9a0e-1f5c3b2a9d10';
const AGENT_B = '0b5f8e2c-6a1d-4c3e-8f7a-2d9e4b1c6a55';

function refusal(value: unknown): ContractError {
  expect(value).toBeInstanceOf(RefusedPayload);
  return (value as RefusedPayload).toError();
}

describe('the actor comes from the subject', () => {
  it('fills an absent actor field with the subject agent', () => {
    const body = bodyWithActor(ProposeOwnMoveV1, `ioa.agent.${AGENT_A}.move.propose.v1`, { type: 'speak', turn: 1 });
    expect(body).toEqual({ type: 'speak', turn: 1, speakerId: AGENT_A });
  });

  it('fills a null actor field too, and keeps one that names the subject agent', () => {
    expect(bodyWithActor(HeartbeatOwnAgentV1, `ioa.agent.${AGENT_A}.heartbeat.v1`, { id: null })).toEqual({
      id: AGENT_A,
    });
    expect(bodyWithActor(ReportOwnTaskV1, `ioa.agent.${AGENT_A}.task.report.v1`, { agentId: AGENT_A })).toEqual({
      agentId: AGENT_A,
    });
  });

  it('refuses a field that names another agent with FORBIDDEN, quoting it briefly', () => {
    const error = refusal(
      bodyWithActor(ProposeOwnMoveV1, `ioa.agent.${AGENT_B}.move.propose.v1`, { speakerId: AGENT_A, turn: 1 }),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe(`speakerId "${AGENT_A}" does not match the sending agent ${AGENT_B}`);
    const long = refusal(
      bodyWithActor(ReportOwnTaskV1, `ioa.agent.${AGENT_B}.task.report.v1`, { agentId: 'x'.repeat(10_000) }),
    );
    expect(long.message.length).toBeLessThan(200);
  });

  it('refuses a field of another type than the id (a number, an object)', () => {
    expect(refusal(bodyWithActor(HeartbeatOwnAgentV1, `ioa.agent.${AGENT_A}.heartbeat.v1`, { id: 7 })).code).toBe(
      'FORBIDDEN',
    );
    const nested = { id: { $eq: AGENT_A } };
    expect(refusal(bodyWithActor(HeartbeatOwnAgentV1, `ioa.agent.${AGENT_A}.heartbeat.v1`, nested)).code).toBe(
      'FORBIDDEN',
    );
  });

  it('refuses a subject whose agent token is not an agent id', () => {
    const error = refusal(bodyWithActor(HeartbeatOwnAgentV1, 'ioa.agent.registry.heartbeat.v1', {}));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/"registry" is not a UUID/);
  });

  it('leaves bodies it cannot read, and contracts without an actor, to validation', () => {
    const malformed = new MalformedPayload('Unexpected token');
    expect(bodyWithActor(ProposeOwnMoveV1, `ioa.agent.${AGENT_A}.move.propose.v1`, malformed)).toBe(malformed);
    expect(bodyWithActor(ProposeOwnMoveV1, `ioa.agent.${AGENT_A}.move.propose.v1`, [1])).toEqual([1]);
    const body = { speakerId: AGENT_B };
    expect(bodyWithActor(ProposeMoveV1, 'ioa.chat.move.propose.v1', body)).toBe(body);
  });

  it('names the actor of a subject, and only for actor contracts', () => {
    expect(actingAgentOf(ListOwnGroupMessagesV1, `ioa.agent.${AGENT_A}.group.messages.list.v1`)).toBe(AGENT_A);
    expect(() => actingAgentOf(ProposeMoveV1, 'ioa.chat.move.propose.v1')).toThrow(/does not name an actor/);
    expect(actorContractOf('ioa.agent.*.move.propose.v1')).toBe(ProposeOwnMoveV1);
    expect(actorContractOf('ioa.chat.move.propose.v1')).toBeUndefined();
  });

  it('is applied by the Nest transport on the way in (the handler pattern with its "*")', () => {
    const deserializer = new NatsJsonDeserializer();
    const incoming = (subject: string, body: unknown) =>
      deserializer.deserialize(
        { subject, data: new TextEncoder().encode(JSON.stringify(body)), reply: '_INBOX.x.1' } as never,
        { channel: 'ioa.agent.*.move.propose.v1' },
      );
    expect(incoming(`ioa.agent.${AGENT_A}.move.propose.v1`, { turn: 2 }).data).toEqual({
      turn: 2,
      speakerId: AGENT_A,
    });
    expect(refusal(incoming(`ioa.agent.${AGENT_B}.move.propose.v1`, { speakerId: AGENT_A }).data).code).toBe(
      'FORBIDDEN',
    );
  });
});
