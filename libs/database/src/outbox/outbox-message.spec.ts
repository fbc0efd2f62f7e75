import 'reflect-metadata';
import { AgentDeregisteredV1, subjectFor, TaskCanceledV1, TaskUpdatedV1 } from '@ioa/contracts';
import { eventContractFor, outboxMessage, subjectOf } from './outbox-message.js';

describe('outbox messages', () => {
  const canceled = { taskId: '6f1c1f4e-4a4b-4c1e-9a57-0d7f6a1f0b11', reason: 'goal canceled' };

  it('go out on the contract subject', () => {
    const message = outboxMessage(AgentDeregisteredV1, { agentId: 'a', name: 'n', revision: 2 }, 'a:2');
    expect(message).toEqual({
      contract: AgentDeregisteredV1,
      payload: { agentId: 'a', name: 'n', revision: 2 },
      messageId: 'a:2',
    });
    expect(subjectOf(message)).toBe(AgentDeregisteredV1.subject);
  });

  it('of an addressed contract go out on the recipient subject made with subjectFor', () => {
    const subject = subjectFor(TaskCanceledV1, 'agent-7');
    const message = outboxMessage(TaskCanceledV1, canceled, 'task:canceled:1', { subject });
    expect(subjectOf(message)).toBe('ioa.agent.agent-7.task-canceled.v1');
  });

  it('refuse an addressed contract without a recipient, and a subject that is not the contract’s', () => {
    expect(() => outboxMessage(TaskCanceledV1, canceled, 'x')).toThrow(/addressed/);
    expect(() => outboxMessage(TaskCanceledV1, canceled, 'x', { subject: 'ioa.agent.a.b.task-canceled.v1' })).toThrow(
      /not a subject of/,
    );
    expect(() =>
      outboxMessage(AgentDeregisteredV1, { agentId: 'a', name: 'n', revision: 1 }, 'x', {
        subject: TaskUpdatedV1.subject,
      }),
    ).toThrow(/not a subject of/);
  });
});

describe('the contract of an outbox row', () => {
  it('is the catalog’s contract of its subject, stream included', () => {
    expect(eventContractFor(TaskUpdatedV1.subject)).toBe(TaskUpdatedV1);
  });

  it('of an addressed subject is the contract published on the concrete subject', () => {
    const contract = eventContractFor('ioa.agent.agent-7.task-canceled.v1');
    expect(contract).toMatchObject({ payload: TaskCanceledV1.payload, subject: 'ioa.agent.agent-7.task-canceled.v1' });
    expect(contract?.stream).toBe(TaskCanceledV1.stream);
  });

  it('is unknown for a subject no contract declares', () => {
    expect(eventContractFor('ioa.registry.agent.vanished.v1')).toBeUndefined();
    expect(eventContractFor('ioa.agent.a.b.task-canceled.v1')).toBeUndefined();
  });
});
