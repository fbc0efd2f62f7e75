import { resolve } from 'node:path';
import { DEFAULT_CONSOLE_DIR, DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT, gatewayConfig } from './gateway.config.js';

describe('the gateway configuration', () => {
  const saved = {
    GATEWAY_PORT: process.env.GATEWAY_PORT,
    GATEWAY_HEALTH_TIMEOUT_MS: process.env.GATEWAY_HEALTH_TIMEOUT_MS,
    GATEWAY_HOST: process.env.GATEWAY_HOST,
    GATEWAY_CONSOLE_DIR: process.env.GATEWAY_CONSOLE_DIR,
  };

  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('listens on loopback port 8080 and waits at most a second for health answers by default', () => {
    delete process.env.GATEWAY_PORT;
    delete process.env.GATEWAY_HEALTH_TIMEOUT_MS;
    delete process.env.GATEWAY_HOST;
    delete process.env.GATEWAY_CONSOLE_DIR;
    expect(gatewayConfig()).toEqual({
      port: DEFAULT_GATEWAY_PORT,
      host: DEFAULT_GATEWAY_HOST,
      healthTimeoutMs: 1000,
      consoleDir: resolve('dist/apps/console'),
    });
    expect(DEFAULT_CONSOLE_DIR).toBe('dist/apps/console');
    expect(DEFAULT_GATEWAY_PORT).toBe(8080);
    expect(DEFAULT_GATEWAY_HOST).toBe('127.0.0.1');
  });

  it('reads GATEWAY_PORT, GATEWAY_HOST, GATEWAY_HEALTH_TIMEOUT_MS and GATEWAY_CONSOLE_DIR', () => {
    process.env.GATEWAY_PORT = '9090';
    process.env.GATEWAY_HEALTH_TIMEOUT_MS = '250';
    process.env.GATEWAY_HOST = '0.0.0.0';
    process.env.GATEWAY_CONSOLE_DIR = '/srv/console';
    expect(gatewayConfig()).toEqual({ port: 9090, host: '0.0.0.0', healthTimeoutMs: 250, consoleDir: '/srv/console' });
  });

  it('refuses a GATEWAY_HOST that is not an address', () => {
    process.env.GATEWAY_HOST = 'everywhere';
    expect(() => gatewayConfig()).toThrow(/GATEWAY_HOST must be an IP address/);
  });

  it('refuses to boot on a port that is not a number, saying which variable is wrong', () => {
    process.env.GATEWAY_PORT = 'eighty';
    expect(() => gatewayConfig()).toThrow(/GATEWAY_PORT must be an integer/);
  });
});
