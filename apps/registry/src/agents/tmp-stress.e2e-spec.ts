import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { HeartbeatAgentV1, RegisterAgentV1, DeregisterAgentV1, UpdateAgentV1 } from '@ioa/contracts';
import { createService } from '@ioa/messaging';
import { connectRaw, rawRequest, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { RegistryModule } from '../registry.module.js';
import { newAgentRegistration } from '../testing/agent-registration.factory.js';
import { watchRegistryEvents } from '../testing/registry-events.js';

describe('stress', () => {
  let infrastructure: TestInfrastructure;
  let services: INestMicroservice[] = [];
  let external: NatsConnection;
  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment({
      REGISTRY_HEARTBEAT_TTL_SECONDS: process.env.STRESS_TTL ?? '1',
      REGISTRY_PRESENCE_SWEEP_MS: '50',
    });
    services = [
      await createService(RegistryModule, { name: 'registry', logger: ['error', 'warn'] }),
      await createService(RegistryModule, { name: 'registry', logger: ['error', 'warn'] }),
      await createService(RegistryModule, { name: 'registry', logger: ['error', 'warn'] }),
    ];
    external = await connectRaw(infrastructure.natsUrl);
  });
  afterAll(async () => {
    await external?.close();
    for (const s of services) await s.close();
    await infrastructure?.stop();
  });
  it('races', async () => {
    const watcher = await watchRegistryEvents(external);
    const codes: Record<string, number> = {};
    for (let round = 0; round < 20; round++) {
      const reg = newAgentRegistration();
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          rawRequest(
            external,
            RegisterAgentV1.subject,
            { ...reg, owner: i % 2 ? 'a' : 'b', version: `1.0.${i % 3}` },
            20000,
          ),
        ),
      );
      for (const r of replies) codes[r.ok ? 'ok' : r.error!.code] = (codes[r.ok ? 'ok' : r.error!.code] ?? 0) + 1;
      const created = replies.filter((r) => r.ok && (r.data as any).created).length;
      expect(created).toBe(1);
      const id = (replies.find((r) => r.ok)!.data as any).agent.id;
      // mixed concurrent ops on the same agent
      const owner = (replies.find((r) => r.ok)!.data as any).agent.owner;
      const mixed = await Promise.all([
        ...Array.from({ length: 10 }, () => rawRequest(external, HeartbeatAgentV1.subject, { id }, 20000)),
        ...Array.from({ length: 5 }, (_, i) =>
          rawRequest(external, UpdateAgentV1.subject, { id, owner, description: `d${i}` }, 20000),
        ),
      ]);
      for (const r of mixed)
        codes['mixed-' + (r.ok ? 'ok' : r.error!.code)] = (codes['mixed-' + (r.ok ? 'ok' : r.error!.code)] ?? 0) + 1;
    }
    console.log(codes);
    expect(Object.keys(codes).filter((c) => c.includes('INTERNAL') || c.includes('TIMEOUT'))).toEqual([]);
    // throughput: sequential and concurrent registrations
    let t = Date.now();
    for (let i = 0; i < 200; i++) await rawRequest(external, RegisterAgentV1.subject, newAgentRegistration());
    const seq = 200 / ((Date.now() - t) / 1000);
    t = Date.now();
    const N = 2000;
    const ids: string[] = [];
    for (let b = 0; b < N / 100; b++) {
      const rs = await Promise.all(
        Array.from({ length: 100 }, () => rawRequest(external, RegisterAgentV1.subject, newAgentRegistration(), 20000)),
      );
      rs.forEach((r) => {
        expect(r.ok).toBe(true);
        ids.push((r.data as any).agent.id);
      });
    }
    const conc = N / ((Date.now() - t) / 1000);
    t = Date.now();
    const lat: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, w) => {
        for (let i = w; i < ids.length; i += 10) {
          const s = performance.now();
          await rawRequest(external, HeartbeatAgentV1.subject, { id: ids[i] });
          lat.push(performance.now() - s);
        }
      }),
    );
    lat.sort((a, b) => a - b);
    console.log({
      sequentialRegistersPerSecond: Math.round(seq),
      concurrent100RegistersPerSecond: Math.round(conc),
      heartbeatsPerSecond: Math.round(ids.length / ((Date.now() - t) / 1000)),
      heartbeatP50: lat[Math.floor(lat.length * 0.5)].toFixed(2),
      heartbeatP99: lat[Math.floor(lat.length * 0.99)].toFixed(2),
    });
    // presence sweep with 3 replicas: each registered agent goes offline exactly once
    const target = ids.slice(0, 300);
    const start = Date.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        const done = target.every((id) => watcher.about(id).some((e) => e.subject.includes('went-offline')));
        if (done) {
          clearInterval(timer);
          resolve();
        }
        if (Date.now() - start > 30000) {
          clearInterval(timer);
          reject(new Error('timeout'));
        }
      }, 100);
    });
    // let duplicates (if any) arrive
    await new Promise((r) => setTimeout(r, 1500));
    if (process.env.STRESS_TTL) return;
    const dup = target.filter((id) => {
      const presence = watcher
        .about(id)
        .filter((e) => e.subject.includes('went-offline') || e.subject.includes('came-online'))
        .map((e) => (e.subject.includes('went-offline') ? 'off' : 'on'));
      return presence.some((p, i) => p !== (i % 2 === 0 ? 'off' : 'on')) || presence[presence.length - 1] !== 'off';
    });
    if (dup.length)
      console.log(JSON.stringify(watcher.about(dup[0]).map((e) => [e.subject.split('.')[3], e.messageId])));
    console.log({ offlineDuplicates: dup.length, sweepSeconds: (Date.now() - start) / 1000 });
    expect(dup).toEqual([]);
    watcher.stop();
  }, 120000);
});
