import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, credsAuthenticator, type Authenticator, type NatsConnection } from '@nats-io/transport-node';

/** Injection token of the service's shared NATS connection (used by clients, publishers and consumers). */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

/** How a service proves who it is to the broker, and where its replies arrive. */
export interface NatsIdentityOptions {
  authenticator?: Authenticator;
  inboxPrefix?: string;
}

/**
 * The service's credentials from `<credentialsDir>/<service>.creds` (provisioned by @ioa/trust) and its own inbox
 * prefix `_INBOX.<service>`: its user may read replies only there, so no other principal reads its replies and it
 * reads no one else's. Without a directory (a test broker without auth) it connects anonymously. The file is read
 * at every (re)connect, so replaced credentials take effect on the next reconnect.
 */
export function natsIdentityOptions(credentialsDir: string | undefined, service: string): NatsIdentityOptions {
  if (!credentialsDir) return {};
  const path = join(credentialsDir, `${service}.creds`);
  if (!existsSync(path)) {
    throw new Error(
      `NATS_CREDENTIALS_DIR is ${credentialsDir} but ${path} does not exist: provision the service credentials ` +
        '(npm start does it under .data/trust) or point NATS_CREDENTIALS_DIR at the directory that has them',
    );
  }
  return {
    authenticator: credsAuthenticator(() => readFileSync(path)),
    inboxPrefix: `_INBOX.${service}`,
  };
}

export async function connectNats(
  servers: string[],
  name: string,
  identity: NatsIdentityOptions = {},
): Promise<NatsConnection> {
  return connect({
    servers,
    name,
    ...identity,
    // A service keeps trying for as long as it runs: a broker restart must not kill it.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}
