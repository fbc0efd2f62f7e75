import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import { ContractError, GetAgentV1, GetAgentV1Request, RegistryHealthV1 } from '@ioa/contracts';
import { PlatformConfigModule } from '@ioa/config';
import { DatabaseModule } from '@ioa/database';
import { connectRaw, rawRequest, startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { createService } from './create-service.js';
import { HandleRequest } from './handler.decorators.js';
import { HealthModule } from './health.js';
import { MessagingModule } from './messaging.module.js';
import { ContractClient } from './contract-client.js';

/** A handler that exercises the error paths: domain errors, bugs, and validated payloads. */
@Controller()
class ProbeController {
  @HandleRequest(GetAgentV1)
  onGet(@Payload() request: GetAgentV1Request): unknown {
    if (request.name === 'missing') throw ContractError.notFound('Agent', request.name);
    if (request.name === 'crash') throw new Error('database password is hunter2');
    return { echoed: request };
  }
}

@Module({
  imports: [
    PlatformConfigModule.forService(),
    MessagingModule.forService('probe'),
    DatabaseModule.forService({ schema: 'probe', entities: [], migrations: [] }),
    HealthModule.forService(RegistryHealthV1),
  ],
  controllers: [ProbeController],
})
class ProbeModule {}

describe('a contract service on the plain JSON wire', () => {
  let infrastructure: TestInfrastructure;
  let service: INestMicroservice;
  let external: NatsConnection;

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
    infrastructure.applyEnvironment();
    service = await createService(ProbeModule, { name: 'probe', logger: false });
    external = await connectRaw(infrastructure.natsUrl);
  });

  afterAll(async () => {
    await external?.close();
    await service?.close();
    await infrastructure?.stop();
  });

  it('answers health with the database reachable, in the {ok, data} envelope', async () => {
    const reply = await rawRequest(external, RegistryHealthV1.subject, {});
    expect(reply).toMatchObject({ ok: true, data: { service: 'registry', status: 'ok', database: 'up' } });
  });

  it('answers a validated request with the handler result, unknown fields stripped', async () => {
    const reply = await rawRequest(external, GetAgentV1.subject, { name: 'alpha', sneaky: true });
    expect(reply).toEqual({ ok: true, data: { echoed: { name: 'alpha' } } });
  });

  it('answers invalid JSON with MALFORMED_PAYLOAD and keeps serving', async () => {
    const reply = await rawRequest(external, GetAgentV1.subject, '{"name": nope');
    expect(reply.ok).toBe(false);
    expect(reply.error).toMatchObject({ code: 'MALFORMED_PAYLOAD', retryable: false });
    expect((await rawRequest(external, RegistryHealthV1.subject, {})).ok).toBe(true);
  });

  it('answers a schema violation with VALIDATION_FAILED naming the field', async () => {
    const reply = await rawRequest(external, GetAgentV1.subject, { name: 'NOT A SLUG' });
    expect(reply.error?.code).toBe('VALIDATION_FAILED');
    expect(reply.error?.details).toEqual([expect.objectContaining({ property: 'name' })]);
  });

  it('answers a non-object body with VALIDATION_FAILED', async () => {
    const reply = await rawRequest(external, GetAgentV1.subject, '[1,2]');
    expect(reply.error?.code).toBe('VALIDATION_FAILED');
  });

  it('passes domain errors through with their code, and hides the details of bugs', async () => {
    expect((await rawRequest(external, GetAgentV1.subject, { name: 'missing' })).error).toMatchObject({
      code: 'NOT_FOUND',
      retryable: false,
    });
    const crash = await rawRequest(external, GetAgentV1.subject, { name: 'crash' });
    expect(crash.error).toEqual({ code: 'INTERNAL', message: 'Internal error', retryable: true });
  });

  it('gives typed clients the data, or the reply error as a ContractError', async () => {
    const client = service.get(ContractClient);
    await expect(client.request(GetAgentV1, { name: 'beta' })).resolves.toEqual({ echoed: { name: 'beta' } });
    await expect(client.request(GetAgentV1, { name: 'missing' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('fails fast with UNAVAILABLE when no service serves a subject', async () => {
    const client = service.get(ContractClient);
    const orphan = { ...GetAgentV1, subject: 'ioa.nobody.agent.get.v1' };
    await expect(client.request(orphan, { name: 'x' }, { timeoutMs: 2000 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });
});
