import 'reflect-metadata';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentIdentityKeys, PLATFORM_SERVICES, trustLayout } from '@ioa/trust';
import { BROKER_RESOLVER_DIR, BROKER_TRUST_MOUNT, brokerAuthConfig, provisionForCompose } from './provision-trust.js';

describe('provisioning trust for containers', () => {
  let work: string;

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'provision-trust-spec-'));
  });

  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('hands each service only its own creds and the registry only its identity keys, which it can load', async () => {
    await provisionForCompose(join(work, 'trust'), join(work, 'out'), undefined);
    for (const service of PLATFORM_SERVICES) {
      const creds = readFileSync(join(work, 'out', service, `${service}.creds`), 'utf8');
      expect(creds).toContain('BEGIN NATS USER JWT');
    }
    const identity = join(work, 'out', 'identity');
    expect(loadAgentIdentityKeys(identity).agentSigning.getPublicKey()).toMatch(/^A/);
    // Nothing the registry does not need: no operator identity seed, no account seeds, no service creds.
    expect(existsSync(join(identity, 'operator.nk'))).toBe(false);
    expect(existsSync(join(identity, 'accounts', 'IOA.nk'))).toBe(false);
    expect(existsSync(join(identity, 'creds'))).toBe(false);
  });

  it('keeps the keys across runs (a re-run re-signs, it does not replace the operator)', async () => {
    await provisionForCompose(join(work, 'trust'), join(work, 'out'), undefined);
    const first = readFileSync(join(work, 'trust', 'operator-signing.nk'), 'utf8');
    await provisionForCompose(join(work, 'trust'), join(work, 'out'), undefined);
    expect(readFileSync(join(work, 'trust', 'operator-signing.nk'), 'utf8')).toBe(first);
  });

  it("points the broker's auth config at the pod's mounts, leaving the rest as provisioned", async () => {
    await provisionForCompose(join(work, 'trust'), join(work, 'out'), undefined);
    const layout = trustLayout(join(work, 'trust'));
    const generated = readFileSync(layout.serverConfig, 'utf8');
    const config = brokerAuthConfig(generated, layout);
    expect(config).toContain(`operator: "${BROKER_TRUST_MOUNT}/operator.jwt"`);
    expect(config).toContain(`dir: "${BROKER_RESOLVER_DIR}"`);
    expect(config).not.toContain(work);
    expect(config).toContain('type: full');
    expect(config.split('\n').length).toBe(generated.split('\n').length);
  });
});
