import { join } from 'node:path';

/**
 * Where provisioning writes the credentials, fixed so the launcher, the registry (identity issuance) and the test
 * harness all find the same files under one directory (the launcher uses `<data dir>/trust`).
 */
export interface TrustLayout {
  root: string;
  operatorJwt: string;
  /** The operator identity seed: signs only the operator JWT. */
  operatorSeed: string;
  /** The operator signing key seed: signs account JWTs and their updates (revocations). */
  operatorSigningSeed: string;
  systemAccountJwt: string;
  systemAccountSeed: string;
  ioaAccountJwt: string;
  ioaAccountSeed: string;
  /** The IOA account's scoped signing key for role "agent": a user it signs gets the agent template, nothing else. */
  agentSigningSeed: string;
  /** A SYS-account user, to push account JWT updates to the running broker on `$SYS.REQ.CLAIMS.UPDATE`. */
  systemCreds: string;
  credsDir: string;
  serverConfig: string;
  /** The full resolver's own store of account JWTs (it keeps pushed updates across restarts). */
  resolverDir: string;
}

export function trustLayout(root: string): TrustLayout {
  return {
    root,
    operatorJwt: join(root, 'operator.jwt'),
    operatorSeed: join(root, 'operator.nk'),
    operatorSigningSeed: join(root, 'operator-signing.nk'),
    systemAccountJwt: join(root, 'accounts', 'SYS.jwt'),
    systemAccountSeed: join(root, 'accounts', 'SYS.nk'),
    ioaAccountJwt: join(root, 'accounts', 'IOA.jwt'),
    ioaAccountSeed: join(root, 'accounts', 'IOA.nk'),
    agentSigningSeed: join(root, 'agent-signing.nk'),
    systemCreds: join(root, 'sys.creds'),
    credsDir: join(root, 'creds'),
    serverConfig: join(root, 'nats-server.conf'),
    resolverDir: join(root, 'resolver'),
  };
}

/** A service's credentials file: `<dir>/<service>.creds` (NATS_CREDENTIALS_DIR points at `creds/`). */
export function serviceCredsPath(credsDir: string, service: string): string {
  return join(credsDir, `${service}.creds`);
}
