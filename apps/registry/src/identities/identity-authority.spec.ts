import 'reflect-metadata';
import { ContractError } from '@ioa/contracts';
import { natsConfig } from '@ioa/config';
import { IdentityAuthority } from './identity-authority.js';

describe('the identity authority without a trust directory', () => {
  it('refuses to issue with a clear UNAVAILABLE, before anything is written', async () => {
    const authority = new IdentityAuthority(
      { trustDir: undefined, ttlSeconds: 60, revocationRetryMs: 100 },
      natsConfig(),
    );
    await authority.onModuleInit();
    expect(authority.configured).toBe(false);
    let refusal: unknown;
    try {
      authority.assertConfigured();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ContractError);
    expect(refusal).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/not configured.*IOA_TRUST_DIR/),
    });
    await expect(authority.pushRevocations({})).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('fails the boot when the trust directory is set but incomplete', async () => {
    const authority = new IdentityAuthority(
      { trustDir: '/nonexistent/trust', ttlSeconds: 60, revocationRetryMs: 100 },
      natsConfig(),
    );
    await expect(authority.onModuleInit()).rejects.toThrow(/IOA_TRUST_DIR is \/nonexistent\/trust but .* not exist/);
  });
});
