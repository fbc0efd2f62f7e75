import { followEventStream, getJson, GoalEventView, summarizeGoal, type EventStreamOptions } from '@ioa/gateway-client';
import { isEndedGoalStatus, type GoalEventV1, type GoalV1 } from '@ioa/contracts';
import type { CliOutput } from './cli-output.js';
import type { CliSettings } from './cli-settings.js';

/**
 * Follows a goal's event stream to its end (the gateway ends it once the goal has ended), printing each event as a
 * line — team, messages, task states — unless the output is JSON, then the finished goal. Drops are resumed with
 * `Last-Event-ID` by the stream client. Returns the goal as it ended.
 */
export async function followGoal(
  goalId: string,
  settings: CliSettings,
  out: CliOutput,
  options: { startedAt: number; signal?: AbortSignal },
): Promise<GoalV1> {
  // Each line shows the time since `startedAt` (the goal's submission).
  const view = new GoalEventView({ paint: out.paint, startedAt: options.startedAt, excerpt: out.excerpt });
  const streamOptions: EventStreamOptions = {
    headers: { authorization: `Bearer ${settings.apiKey}` },
    signal: options.signal,
    maxReconnects: 10,
    onReconnect: ({ lastEventId, reason }) =>
      out.error(out.paint.dim(`(connection lost: ${reason}; resuming after event ${lastEventId ?? 'none'})`)),
  };
  for await (const sse of followEventStream(`${settings.gatewayUrl}/v1/goals/${goalId}/events`, streamOptions)) {
    const event = JSON.parse(sse.data) as GoalEventV1;
    if (out.json) continue;
    for (const line of view.render(event)) out.line(line);
    if (event.type === 'status' && event.data.status === 'input_required') {
      out.line(out.paint.yellow(`  The team asks you something. Answer with: ioa answer ${goalId} "…"`));
    }
  }
  const goal = await getJson<GoalV1>(settings.apiKey, `${settings.gatewayUrl}/v1/goals/${goalId}`);
  if (!isEndedGoalStatus(goal.status)) {
    throw new Error(`the event stream of goal ${goalId} ended while the goal is ${goal.status}`);
  }
  if (out.json) {
    out.printJson(goal);
  } else {
    out.line();
    for (const line of summarizeGoal(goal, { paint: out.paint, excerpt: out.excerpt, offlineModel: false })) {
      out.line(line);
    }
  }
  return goal;
}
