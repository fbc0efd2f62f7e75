import { eventContract } from '../common/contract.js';
import { MessagePostedV1Event, TurnGrantedV1Event } from '../chat/chat.v1.js';

/*
 * What chat delivers to one agent, as an instant-messaging server delivers to each member of a conversation: on the
 * agent's own `ioa.agent.<id>.…` subject, which only that agent (and the platform's services) may read. The stream
 * events `ioa.chat.turn.granted.v1` and `ioa.chat.message.posted.v1` carry the same facts for the platform's
 * services; an agent is not allowed to read them. Core NATS, at most once: an agent that was away reads what it
 * missed with `ioa.agent.<id>.group.messages.list.v1`, and a turn it missed times out and passes on.
 */

/** The turn, delivered to its holder only. @since 1 */
export const TurnGrantedToAgentV1 = eventContract<TurnGrantedV1Event>({
  subject: 'ioa.agent.*.turn.granted.v1',
  owner: 'chat',
  payload: TurnGrantedV1Event,
  summary: 'You hold the turn in a group: propose a move on ioa.agent.<your id>.move.propose.v1 before the deadline.',
  since: '1',
});

/** A message of a group, delivered to each of its members (the speaker included). @since 1 */
export const MessagePostedToMemberV1 = eventContract<MessagePostedV1Event>({
  subject: 'ioa.agent.*.message.posted.v1',
  owner: 'chat',
  payload: MessagePostedV1Event,
  summary: 'A message was appended to a group you are a member of (in seq order; gaps are read back by listing).',
  since: '1',
});
