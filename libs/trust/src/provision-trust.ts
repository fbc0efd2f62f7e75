import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Algorithms,
  createAccount,
  createOperator,
  createUser,
  decode,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  fromSeed,
  newScopedSigner,
  type Account,
  type KeyPair,
  type RevocationList,
} from '@nats-io/jwt';
import { trustLayout, serviceCredsPath, type TrustLayout } from './trust-layout.js';
import {
  AGENT_ROLE,
  agentPermissionTemplate,
  PLATFORM_SERVICES,
  servicePermissions,
  type NatsPermissions,
  type PlatformService,
} from './service-permissions.js';

/** Name of the NATS application account every service and agent lives in. */
export const IOA_ACCOUNT = 'IOA';
export const SYSTEM_ACCOUNT = 'SYS';

/** The broker's largest message: 1 MiB (nats-server's default), stated so every principal's limit matches it. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** The longest protocol line the broker accepts: room for a service's user JWT in CONNECT. */
export const MAX_CONTROL_LINE_BYTES = 64 * 1024;
/** Subscriptions one agent connection may hold: an agent needs a handful; this stops one from exhausting the broker. */
export const AGENT_MAX_SUBSCRIPTIONS = 1000;
/**
 * Connections the IOA account (every service and agent) may hold at once. A NATS 2.9 user JWT has no connection
 * limit of its own, so the per-principal bound is the account's: one agent opening connections in a loop is stopped
 * there, long before the broker's own 64K.
 */
export const IOA_MAX_CONNECTIONS = 10_000;

export interface ProvisionedTrust {
  layout: TrustLayout;
  operatorPublicKey: string;
  systemAccountPublicKey: string;
  ioaAccountPublicKey: string;
  agentSigningPublicKey: string;
  /** True when this run created the operator (a fresh directory), false when it loaded existing keys. */
  created: boolean;
}

/**
 * Provisions (first run) or loads (later runs) the broker's trust under `root`, in the layout of `trustLayout`:
 * operator, SYS and IOA accounts, the IOA account's scoped signing key for agents, one least-privilege user per
 * service and the nats-server config. Keys are created once and kept; JWTs and service creds are re-signed on every
 * run so a new version's permissions take effect, and the IOA account keeps the revocations already made (read from
 * its JWT file and from the resolver's store, where pushed updates land).
 *
 * Resolver (checked on nats-server 2.9.10): the `full` resolver with `resolver_preload` accepts account JWT updates
 * published on `$SYS.REQ.CLAIMS.UPDATE` by a SYS-account user while the broker runs (a revoked user is disconnected
 * and refused at once; trust-provisioning.e2e-spec.ts) and stores them in `resolver/`, so they outlive a restart
 * (the `MEMORY` resolver keeps nothing it is told after boot). A preloaded JWT replaces the stored one only when it
 * is newer, hence the merge of revocations.
 */
export async function provisionTrust(root: string): Promise<ProvisionedTrust> {
  const layout = trustLayout(root);
  for (const dir of [layout.root, join(layout.root, 'accounts'), layout.credsDir, layout.resolverDir]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  const created = !existsSync(layout.operatorSeed);
  const operator = seedAt(layout.operatorSeed, createOperator);
  const operatorSigning = seedAt(layout.operatorSigningSeed, createOperator);
  const system = seedAt(layout.systemAccountSeed, createAccount);
  const ioa = seedAt(layout.ioaAccountSeed, createAccount);
  const agentSigning = seedAt(layout.agentSigningSeed, createAccount);

  const operatorJwt = await encodeOperator('ioa-operator', operator, {
    signing_keys: [operatorSigning.getPublicKey()],
    system_account: system.getPublicKey(),
  });
  writeSecret(layout.operatorJwt, operatorJwt);

  // The system account needs no JetStream, but its limits must be open (the defaults allow no connection).
  const systemJwt = await encodeAccountJwt(SYSTEM_ACCOUNT, system, operatorSigning, {
    limits: { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 },
  });
  writeSecret(layout.systemAccountJwt, systemJwt);
  const ioaJwt = await encodeIoaAccountJwt(ioa, operatorSigning, agentSigning, existingRevocations(layout, ioa));
  writeSecret(layout.ioaAccountJwt, ioaJwt);

  const systemUser = createUser();
  writeSecret(layout.systemCreds, await credsFor('ioa-sys', systemUser, system, { pub: all(), sub: all() }));
  for (const service of PLATFORM_SERVICES) {
    const user = createUser();
    writeSecret(serviceCredsPath(layout.credsDir, service), await credsFor(service, user, ioa, permissionsOf(service)));
  }

  writeSecret(
    layout.serverConfig,
    serverConfig(layout, system.getPublicKey(), {
      [system.getPublicKey()]: systemJwt,
      [ioa.getPublicKey()]: ioaJwt,
    }),
  );
  return {
    layout,
    operatorPublicKey: operator.getPublicKey(),
    systemAccountPublicKey: system.getPublicKey(),
    ioaAccountPublicKey: ioa.getPublicKey(),
    agentSigningPublicKey: agentSigning.getPublicKey(),
    created,
  };
}

/** An account JWT signed by the operator's signing key (so the operator identity seed can stay offline). */
export function encodeAccountJwt(
  name: string,
  account: KeyPair,
  operatorSigning: KeyPair,
  claims: Partial<Account>,
): Promise<string> {
  return encodeAccount(name, account, claims, { signer: operatorSigning, algorithm: Algorithms.v2 });
}

/**
 * The IOA account: JetStream on, the agent role's scoped signing key with its template, and its revocations. Used by
 * provisioning and by whoever re-signs the account to revoke a user (the registry's identity authority).
 */
export function encodeIoaAccountJwt(
  ioa: KeyPair,
  operatorSigning: KeyPair,
  agentSigning: KeyPair,
  revocations: RevocationList = {},
): Promise<string> {
  const template = agentPermissionTemplate();
  return encodeAccountJwt(IOA_ACCOUNT, ioa, operatorSigning, {
    signing_keys: [
      newScopedSigner(agentSigning, AGENT_ROLE, {
        pub: template.pub,
        sub: template.sub,
        resp: template.resp,
        subs: AGENT_MAX_SUBSCRIPTIONS,
        payload: MAX_PAYLOAD_BYTES,
        data: -1,
      }),
    ],
    limits: {
      subs: -1,
      data: -1,
      payload: MAX_PAYLOAD_BYTES,
      imports: -1,
      exports: -1,
      wildcards: true,
      conn: IOA_MAX_CONNECTIONS,
      leaf: -1,
      mem_storage: -1,
      disk_storage: -1,
      streams: -1,
      consumer: -1,
    },
    revocations,
  });
}

/** A user JWT signed by `issuer` (an account key, or a scoped signing key with `issuerAccount`). */
export function encodeUserJwt(
  name: string,
  user: KeyPair,
  issuer: KeyPair,
  options: { permissions?: NatsPermissions; issuerAccount?: string; expiresAt?: Date } = {},
): Promise<string> {
  const permissions = options.permissions;
  return encodeUser(
    name,
    user,
    issuer,
    {
      ...(permissions ? { pub: permissions.pub, sub: permissions.sub, resp: permissions.resp } : {}),
      ...(options.issuerAccount ? { issuer_account: options.issuerAccount } : {}),
      ...(permissions ? { subs: -1, data: -1, payload: -1 } : {}),
    },
    {
      algorithm: Algorithms.v2,
      ...(options.expiresAt ? { exp: Math.floor(options.expiresAt.getTime() / 1000) } : {}),
    },
  );
}

/** A `.creds` file's text: the user JWT and the user's seed (the nats clients' `credsAuthenticator` reads it). */
export function credsText(jwt: string, user: KeyPair): string {
  return new TextDecoder().decode(fmtCreds(jwt, user));
}

function permissionsOf(service: PlatformService): NatsPermissions {
  return servicePermissions(service);
}

async function credsFor(name: string, user: KeyPair, account: KeyPair, permissions: NatsPermissions): Promise<string> {
  return credsText(await encodeUserJwt(name, user, account, { permissions }), user);
}

function all(): { allow: string[]; deny: string[] } {
  return { allow: ['>'], deny: [] };
}

/** The key pair whose seed is stored at `path` (the layout's `.nk` files). */
export function readKeyPair(path: string): KeyPair {
  return fromSeed(new TextEncoder().encode(readFileSync(path, 'utf8').trim()));
}

/** The seed stored at `path`, created by `create` when the file does not exist yet. */
function seedAt(path: string, create: () => KeyPair): KeyPair {
  if (existsSync(path)) return readKeyPair(path);
  const pair = create();
  writeSecret(path, new TextDecoder().decode(pair.getSeed()));
  return pair;
}

function writeSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
}

/** Revocations already made on the IOA account: in its JWT file and in any newer copy the resolver stored. */
function existingRevocations(layout: TrustLayout, ioa: KeyPair): RevocationList {
  const candidates = [layout.ioaAccountJwt];
  if (existsSync(layout.resolverDir)) {
    for (const file of readdirSync(layout.resolverDir)) {
      if (file.startsWith(ioa.getPublicKey())) candidates.push(join(layout.resolverDir, file));
    }
  }
  const merged: RevocationList = {};
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    try {
      const claims = decode<Account>(readFileSync(file, 'utf8').trim());
      for (const [key, at] of Object.entries(claims.nats.revocations ?? {})) {
        merged[key] = Math.max(merged[key] ?? 0, at);
      }
    } catch {
      // not a JWT (the resolver's bookkeeping): nothing to keep
    }
  }
  return merged;
}

function serverConfig(layout: TrustLayout, systemAccount: string, preload: Record<string, string>): string {
  const entries = Object.entries(preload)
    .map(([key, jwt]) => `  ${key}: "${jwt}"`)
    .join('\n');
  return [
    '# Generated by @ioa/trust (provisionTrust): JWT authentication, every principal has its own user.',
    `operator: "${layout.operatorJwt}"`,
    `system_account: ${systemAccount}`,
    `max_payload: ${MAX_PAYLOAD_BYTES}`,
    // A user JWT (with its permissions) travels in the CONNECT line; the default 4 KiB is too short for a service
    // that serves and consumes many subjects. An external nats-server needs the same setting.
    `max_control_line: ${MAX_CONTROL_LINE_BYTES}`,
    'resolver: {',
    '  type: full',
    `  dir: "${layout.resolverDir}"`,
    '  allow_delete: false',
    '  interval: "2m"',
    '  timeout: "1.9s"',
    '}',
    'resolver_preload: {',
    entries,
    '}',
    '',
  ].join('\n');
}
