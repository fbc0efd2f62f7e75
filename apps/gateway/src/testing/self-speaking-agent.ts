import type { NatsConnection } from '@nats-io/transport-node';
import {
  HeartbeatAgentV1,
  ProposeMoveV1,
  RegisterAgentV1,
  TurnGrantedV1,
  USER_SPEAKER,
  type RegisterAgentV1Response,
  type TurnGrantedV1Event,
} from '@ioa/contracts';
import { rawRequest } from '@ioa/testing';

/**
 * A test that stops the platform before its agents leaves a heartbeat or a move in flight on a closing connection
 * (or a broker that stopped answering): that is the end of the test, not a failure of it, and as an unhandled
 * rejection it would be reported against whichever test runs next. Replies with errors are not thrown at all.
 */
function ignoreTransportFailure(): undefined {
  return undefined;
}

/** Well within the registry's heartbeat TTL. */
const HEARTBEAT_MS = 2_000;

/** A test agent on a bare NATS connection; `stop` ends its subscription and heartbeat. */
export interface SelfSpeakingAgent {
  id: string;
  stop(): void;
}

/**
 * An agent that speaks for itself in its groups (`communicator: 'self'`) on a bare NATS connection: `onTurn` picks
 * its move for each turn granted to it (`undefined`: it stays silent). It heartbeats like any agent, so goals that
 * name it do not fail for want of a live member.
 */
export async function startSelfSpeakingAgent(
  connection: NatsConnection,
  name: string,
  onTurn: (turn: TurnGrantedV1Event) => Record<string, unknown> | undefined,
): Promise<SelfSpeakingAgent> {
  const registered = await rawRequest(connection, RegisterAgentV1.subject, {
    name,
    description: `Test agent ${name}.`,
    skills: [{ id: 'talk', name: 'Talk', description: 'Talks in the group.' }],
    owner: 'gateway-protocol-tests',
    endpoint: { kind: 'nats' },
    metadata: { communicator: 'self' },
  });
  if (!registered.ok) throw new Error(`${name} could not register: ${JSON.stringify(registered.error)}`);
  const id = (registered.data as RegisterAgentV1Response).agent.id;
  const subscription = connection.subscribe(TurnGrantedV1.subject, {
    callback: (_error, message) => {
      const turn = message.json<TurnGrantedV1Event>();
      if (turn.speakerId !== id) return;
      const move = onTurn(turn);
      if (!move) return;
      rawRequest(connection, ProposeMoveV1.subject, {
        groupId: turn.groupId,
        speakerId: id,
        turn: turn.turn,
        ...move,
      }).catch(ignoreTransportFailure);
    },
  });
  const heartbeat = setInterval(
    () => void rawRequest(connection, HeartbeatAgentV1.subject, { id }).catch(ignoreTransportFailure),
    HEARTBEAT_MS,
  );
  await connection.flush();
  return {
    id,
    stop: () => {
      clearInterval(heartbeat);
      subscription.unsubscribe();
    },
  };
}

/** Asks the person which language first, then concludes with a greeting in the latest answer. */
export function greeterMoves(question: string) {
  return (turn: TurnGrantedV1Event): Record<string, unknown> => {
    const answer = [...turn.recentMessages].reverse().find((entry) => entry.type === 'user');
    const asked = turn.recentMessages.some((entry) => entry.nextSpeaker === USER_SPEAKER);
    return answer && asked
      ? { type: 'conclude', content: `Hallo, Team! (greeting in ${answer.content})` }
      : { type: 'discussion', content: question, nextSpeaker: USER_SPEAKER };
  };
}
