import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { startTestInfrastructure, type TestInfrastructure } from '@ioa/testing';
import { createGatewayApp } from '../gateway.app.js';
import { generateApiKey } from './api-key.js';

/**
 * IOA_ADMIN_API_KEY at gateway boot: provisioned once as the local admin's key however often the gateway starts,
 * and replaced (the old value revoked) when the variable changes.
 */
describe('provisioning the local admin key at boot', () => {
  let infrastructure: TestInfrastructure;
  const first = generateApiKey();
  const second = generateApiKey();

  async function withGateway<T>(adminKey: string, use: (baseUrl: string) => Promise<T>): Promise<T> {
    infrastructure.applyEnvironment({ IOA_ADMIN_API_KEY: adminKey });
    const gateway: INestApplication = await createGatewayApp({ logger: false });
    await gateway.listen(0, '127.0.0.1');
    try {
      return await use((await gateway.getUrl()).replace('[::1]', '127.0.0.1'));
    } finally {
      await gateway.close();
    }
  }

  const me = (baseUrl: string, key: string) =>
    fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.status);

  beforeAll(async () => {
    infrastructure = await startTestInfrastructure();
  }, 120_000);

  afterAll(async () => {
    await infrastructure?.stop();
  });

  it('keeps one key across restarts, and revokes it when the variable names another', async () => {
    await withGateway(first, async (baseUrl) => expect(await me(baseUrl, first)).toBe(200));
    await withGateway(first, async (baseUrl) => {
      expect(await me(baseUrl, first)).toBe(200);
      const keys = await fetch(`${baseUrl}/v1/accounts/local-admin/api-keys`, {
        headers: { authorization: `Bearer ${first}` },
      }).then((response) => response.json() as Promise<{ items: Array<{ name: string }> }>);
      expect(keys.items.filter((key) => key.name === 'IOA_ADMIN_API_KEY')).toHaveLength(1);
    });
    await withGateway(second, async (baseUrl) => {
      expect(await me(baseUrl, second)).toBe(200);
      expect(await me(baseUrl, first)).toBe(401);
    });
  });
});
