import { connect } from '@nats-io/transport-node';

/**
 * The external agent of docs/architecture.md ("Joining as an external agent"), transcribed line for line: a bare
 * NATS client, JSON, nothing of ours. The conformance kit's test measures how far the raw guide alone gets an author.
 * One liberty, so the test process survives: where the guide's task loop would throw (and Node would exit on the
 * unhandled rejection), this copy "exits" — it stops heartbeating and closes its connection.
 */
export async function startDocsOnlyAgent(url: string, name: string): Promise<{ stop(): Promise<void> }> {
  const nc = await connect({ servers: url });
  const decode = (message: { data: Uint8Array }) => JSON.parse(new TextDecoder().decode(message.data)) as never;

  async function call<T>(subject: string, body: unknown): Promise<T> {
    const reply = decode(await nc.request(subject, JSON.stringify(body), { timeout: 5000 })) as {
      ok: boolean;
      data: T;
      error: { code: string; message: string };
    };
    if (!reply.ok) throw new Error(`${subject}: ${reply.error.code}: ${reply.error.message}`);
    return reply.data;
  }

  // The guide registers at once; this copy retries until the kit answers (the guide's author would restart it).
  let registered: { agent: { id: string }; heartbeatTtlSeconds: number } | undefined;
  while (!registered) {
    registered = await call<{ agent: { id: string }; heartbeatTtlSeconds: number }>('ioa.registry.agent.register.v1', {
      name,
      description: 'Answers questions about the weather: forecasts, rain, wind and temperatures for any city.',
      owner: 'team-weather@example.org',
      skills: [
        {
          id: 'forecast',
          name: 'Weather forecast',
          description: 'Forecast for a city and a day, with rain probability and temperatures.',
          tags: ['weather', 'forecast'],
          examples: ['Will it rain in Lyon tomorrow?'],
        },
      ],
      endpoint: { kind: 'nats' },
    }).catch(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return undefined;
    });
  }
  const { agent, heartbeatTtlSeconds } = registered;

  const heartbeat = setInterval(
    () => void call('ioa.registry.agent.heartbeat.v1', { id: agent.id }).catch(() => undefined),
    (heartbeatTtlSeconds * 1000) / 3,
  );

  const crash = async () => {
    clearInterval(heartbeat);
    if (!nc.isClosed()) await nc.close();
  };

  void (async () => {
    for await (const message of nc.subscribe(`ioa.agent.${agent.id}.task.v1`)) {
      const task = decode(message) as { taskId: string; brief: { description: string } };
      message.respond(JSON.stringify({ ok: true, data: { accepted: true } }));
      const result = `Sunny, 24 °C. (${task.brief?.description})`;
      await call('ioa.scheduler.task.report.v1', {
        taskId: task.taskId,
        agentId: agent.id,
        state: 'completed',
        content: result,
      }).catch(() => undefined);
    }
  })().catch(crash);

  return { stop: crash };
}
