import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EmbeddedNats {
  /** For clients on this machine (loopback when the server listens on every interface). */
  url: string;
  port: number;
  /** The address(es) agents elsewhere use: one per interface the server listens on (see `agentUrlsFor`). */
  agentUrls: string[];
  stop(): Promise<void>;
}

export interface NatsServerOptions {
  /**
   * The interface to listen on: loopback (127.0.0.1, the default) keeps the broker to this machine; an interface's
   * address, or 0.0.0.0 for every interface, lets agents on other hosts connect. Without `configFile` there is no
   * authentication (the unit/e2e test broker), so open it only with one.
   */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** JetStream storage; a temporary directory (removed on stop) when absent. */
  storeDir?: string;
  /**
   * Run the server in its own process group, so a Ctrl-C in the terminal reaches only the parent, which can then
   * stop its services before the broker they use (the local stack does this).
   */
  detached?: boolean;
  /**
   * A nats-server config file (the one `provisionTrust` of @ioa/trust writes: JWT authentication, resolver, limits).
   * Host, port and JetStream storage still come from the options above, which override the file.
   */
  configFile?: string;
  /** Receives the server's log output after it started (tests collect its "Permissions Violation" lines). */
  onOutput?: (text: string) => void;
}

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/** The nats-server binary: $NATS_SERVER_BIN, then the Debian package's location, then PATH. */
export function findNatsServerBinary(): string | undefined {
  if (process.env.NATS_SERVER_BIN && existsSync(process.env.NATS_SERVER_BIN)) return process.env.NATS_SERVER_BIN;
  const fromPath = (process.env.PATH ?? '').split(':').map((dir) => join(dir, 'nats-server'));
  return [...CANDIDATES, ...fromPath].find((candidate) => existsSync(candidate));
}

/**
 * Starts a real nats-server with JetStream on a local port, as a child process. The port is read from the
 * server's own log line, so there is no race between picking a free port and binding it.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<EmbeddedNats> {
  const binary = findNatsServerBinary();
  if (!binary) {
    throw new Error('nats-server is not installed: run `apt-get install nats-server` (or set NATS_SERVER_BIN)');
  }
  const temporary = options.storeDir ? undefined : mkdtempSync(join(tmpdir(), 'ioa-nats-'));
  const storeDir = options.storeDir ?? temporary!;
  const port = options.port && options.port > 0 ? String(options.port) : '-1';
  const host = options.host ?? '127.0.0.1';
  const config = options.configFile ? ['-c', options.configFile] : [];
  const child = spawn(binary, [...config, '-a', host, '-p', port, '-js', '-sd', storeDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  const boundPort = await waitForListening(child, options.onOutput);
  const local = isWildcard(host) ? '127.0.0.1' : host;
  return {
    url: `nats://${urlHost(local)}:${boundPort}`,
    port: boundPort,
    agentUrls: agentUrlsFor(host, boundPort),
    stop: async () => {
      await stopChild(child);
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The URLs an agent uses to reach a server listening on `host`: that address itself, or, for a wildcard, the address
 * of every non-loopback IPv4 interface of this machine (then loopback, when there is no other).
 */
export function agentUrlsFor(host: string, port: number): string[] {
  if (!isWildcard(host)) return [`nats://${urlHost(host)}:${port}`];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => `nats://${entry!.address}:${port}`);
  return addresses.length > 0 ? addresses : [`nats://127.0.0.1:${port}`];
}

function waitForListening(child: ChildProcess, onOutput?: (text: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server did not start within 15 s:\n${log}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /Listening for client connections on [^\s]+:(\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        // Keep draining output so the pipe never fills up and blocks the server.
        if (onOutput) {
          child.stdout?.on('data', (data: Buffer) => onOutput(data.toString()));
          child.stderr?.on('data', (data: Buffer) => onOutput(data.toString()));
        }
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited with code ${code}:\n${log}`));
    });
  });
}

export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
