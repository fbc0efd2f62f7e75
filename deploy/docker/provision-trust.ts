import 'reflect-metadata';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { PLATFORM_SERVICES, provisionTrust, serviceCredsPath, type TrustLayout } from '@ioa/trust';

/**
 * Provisions the broker's trust for a container deployment, once, and hands each principal only its part. Two modes:
 *
 * - `--out <dir>` (docker-compose): provisions under `--root` (a volume the broker mounts at the same path, so the
 *   generated nats-server.conf's paths hold), and copies each service's `.creds` to `<out>/<service>/` and the
 *   registry's identity keys to `<out>/identity/` (one volume each), owned by `--owner uid:gid`.
 * - `--kubernetes` (a Job): loads the keys kept in the Secret `ioa-trust-root` (first run: none), provisions, and
 *   writes the Secrets the workloads mount: `ioa-nats-trust` (the broker's operator JWT and `auth.conf`),
 *   `ioa-creds-<service>` (one per service), `ioa-identity-authority` (the registry's signing keys and SYS creds) and
 *   `ioa-trust-root` (every seed, read only by this Job). Keys are made once and kept; JWTs are re-signed each run.
 *
 * After a re-run restart the registry (it pushes the revocation list at boot): the broker takes the freshly signed
 * account JWT from the preload, which carries only the revocations this Job knows of.
 */

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
};

/** The files of the layout the registry reads (IOA_TRUST_DIR), relative to the trust root. */
function identityFiles(layout: TrustLayout): string[] {
  return [layout.ioaAccountJwt, layout.agentSigningSeed, layout.operatorSigningSeed, layout.systemCreds].map((file) =>
    relative(layout.root, file),
  );
}

function copyOut(from: string, to: string, owner: { uid: number; gid: number } | undefined): void {
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  writeFileSync(to, readFileSync(from), { mode: 0o600 });
  if (owner) {
    chownSync(to, owner.uid, owner.gid);
    chownSync(dirname(to), owner.uid, owner.gid);
  }
}

export async function provisionForCompose(root: string, out: string, owner: string | undefined): Promise<void> {
  const [uid, gid] = (owner ?? '').split(':').map(Number);
  const ids = owner ? { uid, gid } : undefined;
  const { layout, created } = await provisionTrust(root);
  for (const service of PLATFORM_SERVICES) {
    copyOut(serviceCredsPath(layout.credsDir, service), join(out, service, `${service}.creds`), ids);
  }
  for (const file of identityFiles(layout)) copyOut(join(layout.root, file), join(out, 'identity', file), ids);
  console.log(`trust ${created ? 'created' : 'loaded'} under ${root}; credentials handed out under ${out}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Kubernetes: Secrets through the API server, with the Job's service account (Role: get/create/update secrets).

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Secret keys cannot hold "/": nested paths of the layout are flattened with this. */
const PATH_SEPARATOR = '__';

interface SecretData {
  [key: string]: string;
}

function kubernetes(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const token = readFileSync(join(SERVICE_ACCOUNT, 'token'), 'utf8').trim();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host: process.env.KUBERNETES_SERVICE_HOST,
        port: Number(process.env.KUBERNETES_SERVICE_PORT ?? 443),
        path,
        method,
        ca: readFileSync(join(SERVICE_ACCOUNT, 'ca.crt')),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        timeout: 10_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    call.on('timeout', () => call.destroy(new Error(`${method} ${path} timed out`)));
    call.on('error', reject);
    call.end(payload);
  });
}

async function readSecret(namespace: string, name: string): Promise<SecretData | undefined> {
  const response = await kubernetes('GET', `/api/v1/namespaces/${namespace}/secrets/${name}`);
  if (response.status === 404) return undefined;
  if (response.status !== 200) throw new Error(`reading Secret ${name}: ${response.status} ${response.body}`);
  const data = (JSON.parse(response.body) as { data?: SecretData }).data ?? {};
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]));
}

async function writeSecret(namespace: string, name: string, data: SecretData): Promise<void> {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name,
      namespace,
      labels: { 'app.kubernetes.io/part-of': 'ioa', 'app.kubernetes.io/managed-by': 'provision-trust' },
    },
    stringData: data,
  };
  const replaced = await kubernetes('PUT', `/api/v1/namespaces/${namespace}/secrets/${name}`, secret);
  if (replaced.status === 200) return;
  if (replaced.status !== 404) throw new Error(`replacing Secret ${name}: ${replaced.status} ${replaced.body}`);
  const created = await kubernetes('POST', `/api/v1/namespaces/${namespace}/secrets`, secret);
  if (created.status !== 201) throw new Error(`creating Secret ${name}: ${created.status} ${created.body}`);
}

function filesUnder(root: string, directory = root): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory() ? filesUnder(root, path) : [relative(root, path)];
  });
}

/** In the broker's pod the trust Secret is mounted at /etc/nats/trust and the resolver keeps its store on /data. */
export const BROKER_TRUST_MOUNT = '/etc/nats/trust';
export const BROKER_RESOLVER_DIR = '/data/resolver';

/**
 * The generated nats-server.conf names the files where provisioning wrote them; the broker's pod has them elsewhere.
 * Only those two paths change: the rest (operator, accounts, resolver type, preload, max_payload) is provisioning's.
 */
export function brokerAuthConfig(generated: string, layout: TrustLayout): string {
  return generated
    .split(layout.operatorJwt)
    .join(`${BROKER_TRUST_MOUNT}/operator.jwt`)
    .split(layout.resolverDir)
    .join(BROKER_RESOLVER_DIR);
}

async function provisionForKubernetes(): Promise<void> {
  const namespace = readFileSync(join(SERVICE_ACCOUNT, 'namespace'), 'utf8').trim();
  const root = mkdtempSync(join(tmpdir(), 'ioa-trust-'));
  try {
    const kept = await readSecret(namespace, 'ioa-trust-root');
    for (const [key, value] of Object.entries(kept ?? {})) {
      const path = join(root, ...key.split(PATH_SEPARATOR));
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, value, { mode: 0o600 });
    }
    const { layout, created } = await provisionTrust(root);
    const read = (path: string) => readFileSync(path, 'utf8');
    const everything = filesUnder(root).filter((file) => !file.startsWith(relative(root, layout.resolverDir)));
    await writeSecret(
      namespace,
      'ioa-trust-root',
      Object.fromEntries(everything.map((file) => [file.split('/').join(PATH_SEPARATOR), read(join(root, file))])),
    );
    await writeSecret(namespace, 'ioa-nats-trust', {
      'operator.jwt': read(layout.operatorJwt),
      'auth.conf': brokerAuthConfig(read(layout.serverConfig), layout),
    });
    for (const service of PLATFORM_SERVICES) {
      await writeSecret(namespace, `ioa-creds-${service}`, {
        [`${service}.creds`]: read(serviceCredsPath(layout.credsDir, service)),
      });
    }
    await writeSecret(
      namespace,
      'ioa-identity-authority',
      Object.fromEntries(identityFiles(layout).map((file) => [file.split('/').pop()!, read(join(root, file))])),
    );
    console.log(`trust ${created ? 'created' : 'loaded and re-signed'}; Secrets written in namespace ${namespace}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const isEntryPoint = process.argv[1]?.endsWith('provision-trust.js') ?? false;
if (isEntryPoint) {
  try {
    if (process.argv.includes('--kubernetes')) {
      await provisionForKubernetes();
    } else {
      const root = argument('--root');
      const out = argument('--out');
      if (!root || !out)
        throw new Error('usage: provision-trust --root <dir> --out <dir> [--owner uid:gid] | --kubernetes');
      await provisionForCompose(root, out, argument('--owner'));
    }
  } catch (error) {
    console.error(`provision-trust failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
