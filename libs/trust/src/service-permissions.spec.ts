import { describe, expect, it } from '@jest/globals';
import { ALL_CONTRACTS, type AnyContract } from '@ioa/contracts';
import {
  agentPermissionTemplate,
  durableConsumerName,
  PLATFORM_SERVICES,
  SERVICE_NEEDS,
  servicePermissions,
  type PlatformService,
} from './index.js';

/** NATS subject matching (`*` one token, `>` the rest), enough to check what a permission list grants. */
function matches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let index = 0; index < want.length; index++) {
    if (want[index] === '>') return have.length > index;
    if (index >= have.length) return false;
    if (want[index] !== '*' && want[index] !== have[index]) return false;
  }
  return want.length === have.length;
}
const grants = (allow: string[], subject: string) => allow.some((pattern) => matches(pattern, subject));
const isService = (owner: string): owner is PlatformService => (PLATFORM_SERVICES as readonly string[]).includes(owner);

describe('service permissions derived from the contract catalog', () => {
  it('lets exactly the owner serve each request and publish each event, for every contract in the catalog', () => {
    for (const contract of ALL_CONTRACTS) {
      for (const service of PLATFORM_SERVICES) {
        const permissions = servicePermissions(service);
        if (contract.kind === 'event') {
          const owns = contract.owner === service || SERVICE_NEEDS[service].sendsForAgents.includes(contract);
          expect([service, contract.subject, grants(permissions.pub.allow, contract.subject)]).toEqual([
            service,
            contract.subject,
            owns,
          ]);
        } else {
          const serves = contract.owner === service || SERVICE_NEEDS[service].servesForAgents.includes(contract);
          expect([service, contract.subject, grants(permissions.sub.allow, contract.subject)]).toEqual([
            service,
            contract.subject,
            serves,
          ]);
        }
      }
    }
  });

  it('has a server for every request and an owner for every event a service needs', () => {
    const owned = (contract: AnyContract) =>
      isService(contract.owner) ||
      PLATFORM_SERVICES.some((service) => SERVICE_NEEDS[service].sendsForAgents.includes(contract));
    for (const service of PLATFORM_SERVICES) {
      const needs = SERVICE_NEEDS[service];
      for (const contract of [...needs.requests, ...needs.streamConsumes, ...needs.coreConsumes]) {
        expect(ALL_CONTRACTS).toContain(contract);
        if (contract.kind === 'event') expect([contract.subject, owned(contract)]).toEqual([contract.subject, true]);
      }
      for (const event of needs.streamConsumes) expect(event.stream).toBeDefined();
    }
  });

  it('grants the requests a service makes and no request it does not make', () => {
    const requests = ALL_CONTRACTS.filter((contract) => contract.kind === 'request');
    for (const service of PLATFORM_SERVICES.filter((name) => name !== 'gateway')) {
      const permissions = servicePermissions(service);
      for (const contract of requests) {
        const makes = SERVICE_NEEDS[service].requests.includes(contract);
        expect([service, contract.subject, grants(permissions.pub.allow, contract.subject)]).toEqual([
          service,
          contract.subject,
          makes || (contract.subject.includes('*') && SERVICE_NEEDS[service].sendsForAgents.includes(contract)),
        ]);
      }
    }
  });

  it('gives every service its own inbox and only its own durable consumers', () => {
    for (const service of PLATFORM_SERVICES) {
      const { pub, sub } = servicePermissions(service);
      expect(sub.allow).toContain(`_INBOX.${service}.>`);
      expect(sub.allow.filter((subject) => subject.startsWith('_INBOX.'))).toEqual([`_INBOX.${service}.>`]);
      expect(sub.allow).not.toContain('>');
      expect(pub.allow).not.toContain('>');
      expect(pub.allow.some((subject) => subject.startsWith('$JS.API.STREAM.DELETE'))).toBe(false);
      expect(pub.allow.some((subject) => subject.startsWith('$JS.API.STREAM.PURGE'))).toBe(false);
      for (const other of PLATFORM_SERVICES.filter((name) => name !== service)) {
        for (const event of SERVICE_NEEDS[other].streamConsumes) {
          const theirs = durableConsumerName(other, event.subject);
          expect(pub.allow.some((subject) => subject.includes(`.${theirs}`))).toBe(false);
        }
      }
    }
  });

  it('keeps the gateway from acting as an agent', () => {
    const { pub } = servicePermissions('gateway');
    for (const subject of [
      'ioa.registry.agent.heartbeat.v1',
      'ioa.chat.move.propose.v1',
      'ioa.scheduler.task.report.v1',
      'ioa.agent.x.task.v1',
    ]) {
      expect([subject, grants(pub.allow, subject)]).toEqual([subject, false]);
    }
  });

  it('confines an agent to its own subjects and inbox', () => {
    const template = agentPermissionTemplate();
    const expand = (patterns: string[]) => patterns.map((pattern) => pattern.replaceAll('{{name()}}', 'agent-a'));
    const pub = expand(template.pub.allow);
    const sub = expand(template.sub.allow);
    expect(grants(pub, 'ioa.agent.agent-a.heartbeat.v1')).toBe(true);
    expect(grants(pub, 'ioa.agent.agent-b.heartbeat.v1')).toBe(false);
    expect(grants(sub, '_INBOX.agent-b.x')).toBe(false);
    expect(grants(pub, '$JS.API.INFO')).toBe(false);
    for (const contract of ALL_CONTRACTS.filter(
      (candidate) => candidate.kind === 'event' && isService(candidate.owner),
    )) {
      expect([contract.subject, grants(pub, contract.subject)]).toEqual([contract.subject, false]);
    }
  });
});
