import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { PLATFORM_SERVICES } from '@ioa/trust';

/**
 * Static checks of docker-compose.yml and k8s/ that need neither a Docker engine nor a cluster (CI has neither;
 * `.ci/run` also runs `kubectl kustomize` when kubectl is installed). It follows kustomizations the way kustomize
 * does (resources, generators, images) and checks what a typo would break at deploy time:
 * - every app under apps/ has a compose service and a Deployment, running the shared image with SERVICE set to it;
 * - every Deployment has a readiness probe, CPU/memory requests and a memory limit, and selectors that match;
 * - every ConfigMap/Secret a workload references is generated or declared (Secrets may come from outside the base);
 * - every Service selects some workload;
 * - a Deployment with more than one replica has a PodDisruptionBudget that leaves a drain room to evict (so a node
 *   drain keeps the service up and still finishes), and every PodDisruptionBudget selects a workload;
 * - authentication (issue 10): the broker runs with the provisioned JWT config; each service mounts only its own NATS
 *   credentials where NATS_CREDENTIALS_DIR points; only the registry mounts the identity keys (IOA_TRUST_DIR); the
 *   credentials come from the provisioning step (compose service / Job `provision-trust`), and nothing else mounts the
 *   trust root.
 */
type Node = { [key: string]: unknown };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const problems: string[] = [];
const problem = (where: string, message: string) => problems.push(`${where}: ${message}`);

const asNode = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {});
const asList = (value: unknown): Node[] => (Array.isArray(value) ? value.map(asNode) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

// The services (apps/cli is a command line, not a deployment): each needs a container, and only these get NATS users.
const apps = readdirSync(join(root, 'apps')).filter(
  (name) =>
    existsSync(join(root, 'apps', name, 'src', 'main.ts')) && (PLATFORM_SERVICES as readonly string[]).includes(name),
);

// ---------------------------------------------------------------------------------------------------------------
// docker-compose.yml

function checkCompose(): void {
  const file = 'docker-compose.yml';
  const compose = asNode(parse(readFileSync(join(root, file), 'utf8'), { merge: true }));
  const services = asNode(compose.services);
  const nats = asNode(services.nats);
  if (!/(^|[\s"'])(-js|--jetstream)\b/.test(JSON.stringify(nats.command ?? '')))
    problem(file, 'nats must run with JetStream');
  if (!text(asNode(services.postgres).image).includes('pgvector')) problem(file, 'postgres must be a pgvector image');
  for (const app of apps) {
    const service = asNode(services[app]);
    const where = `${file} services.${app}`;
    if (Object.keys(service).length === 0) {
      problem(file, `no service for apps/${app}`);
      continue;
    }
    const build = asNode(service.build);
    const dockerfile = join(root, text(build.context) || '.', text(build.dockerfile) || 'Dockerfile');
    if (!existsSync(dockerfile)) problem(where, `Dockerfile ${relative(root, dockerfile)} does not exist`);
    const environment = asNode(service.environment);
    if (environment.SERVICE !== app) problem(where, `SERVICE must be "${app}", is "${String(environment.SERVICE)}"`);
    if (!text(environment.NATS_URL).startsWith('nats://')) problem(where, 'NATS_URL must point at the nats service');
    if (!text(environment.DATABASE_URL).startsWith('postgres')) problem(where, 'DATABASE_URL must be set');
    if (!service.healthcheck) problem(where, 'needs a healthcheck');
  }
  checkComposeTrust(file, services);
  const gatewayPorts = JSON.stringify(asNode(services.gateway).ports ?? []);
  if (!gatewayPorts.includes('8080')) problem(file, 'the gateway must publish port 8080');
}

/** The volume (compose) mounted at `path` in a `volume:target[:mode]` list. */
function volumeAt(volumes: unknown, path: string): string | undefined {
  for (const entry of Array.isArray(volumes) ? volumes : []) {
    const [source, target] = text(entry).split(':');
    if (target === path) return source;
  }
  return undefined;
}

function checkComposeTrust(file: string, services: Node): void {
  const nats = asNode(services.nats);
  const natsCommand = JSON.stringify(nats.command ?? '');
  const trustVolume = volumeAt(nats.volumes, '/trust');
  if (!natsCommand.includes('/trust/nats-server.conf') || !trustVolume) {
    problem(file, 'nats must run with the provisioned config (/trust/nats-server.conf, the trust volume at /trust)');
  }
  const provisioner = asNode(services['provision-trust']);
  if (Object.keys(provisioner).length === 0) problem(file, 'no provision-trust service');
  const handedOut = (Array.isArray(provisioner.volumes) ? provisioner.volumes : []).map((entry) => text(entry));
  for (const [name, service] of Object.entries(services)) {
    const mounts = (Array.isArray(asNode(service).volumes) ? (asNode(service).volumes as unknown[]) : []).map(text);
    if (name !== 'nats' && name !== 'provision-trust' && mounts.some((mount) => mount.startsWith(`${trustVolume}:`))) {
      problem(`${file} services.${name}`, 'must not mount the trust root (it holds every seed)');
    }
  }
  for (const app of apps) {
    const service = asNode(services[app]);
    const where = `${file} services.${app}`;
    const environment = asNode(service.environment);
    const credentialsDir = text(environment.NATS_CREDENTIALS_DIR);
    const creds = volumeAt(service.volumes, credentialsDir);
    if (!credentialsDir || creds !== `creds-${app}`) {
      problem(where, `must mount its own volume creds-${app} at NATS_CREDENTIALS_DIR ("${credentialsDir}")`);
    } else if (!handedOut.includes(`${creds}:/out/${app}`)) {
      problem(where, `provision-trust does not write ${creds} (expected ${creds}:/out/${app})`);
    }
    const mounts = (Array.isArray(service.volumes) ? (service.volumes as unknown[]) : []).map(text);
    const others = mounts.filter((mount) => mount.startsWith('creds-') && !mount.startsWith(`creds-${app}:`));
    if (others.length > 0) problem(where, `mounts another service's credentials: ${others.join(', ')}`);
    const identity = volumeAt(service.volumes, text(environment.IOA_TRUST_DIR));
    if (app === 'registry' && identity !== 'identity')
      problem(where, 'must mount the identity volume at IOA_TRUST_DIR');
    if (app !== 'registry' && (environment.IOA_TRUST_DIR || mounts.some((mount) => mount.startsWith('identity:')))) {
      problem(where, 'only the registry may have the identity keys');
    }
    const waits = asNode(asNode(service.depends_on)['provision-trust']).condition;
    if (waits !== 'service_completed_successfully') problem(where, 'must wait for provision-trust to complete');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// k8s (a small kustomize)

interface Rendered {
  objects: Array<{ object: Node; file: string }>;
  generated: Set<string>; // "ConfigMap/name", "Secret/name"
  images: Set<string>;
  /** `KEY=value` literals of generated ConfigMaps, by ConfigMap name. */
  literals: Map<string, Map<string, string>>;
}

function render(directory: string): Rendered {
  const file = join(directory, 'kustomization.yaml');
  const where = relative(root, file);
  if (!existsSync(file)) throw new Error(`${relative(root, directory)} has no kustomization.yaml`);
  const kustomization = asNode(parse(readFileSync(file, 'utf8')));
  const rendered: Rendered = { objects: [], generated: new Set(), images: new Set(), literals: new Map() };
  for (const resource of (kustomization.resources as string[] | undefined) ?? []) {
    const path = resolve(directory, resource);
    if (!existsSync(path)) {
      problem(where, `resource ${resource} does not exist`);
    } else if (statSync(path).isDirectory()) {
      const inner = render(path);
      rendered.objects.push(...inner.objects);
      inner.generated.forEach((name) => rendered.generated.add(name));
      inner.images.forEach((name) => rendered.images.add(name));
      inner.literals.forEach((values, name) => rendered.literals.set(name, values));
    } else {
      for (const document of parseAllDocuments(readFileSync(path, 'utf8'))) {
        if (document.errors.length > 0) problem(relative(root, path), document.errors[0].message);
        const object = asNode(document.toJS());
        if (Object.keys(object).length > 0) rendered.objects.push({ object, file: relative(root, path) });
      }
    }
  }
  for (const [kind, key] of [
    ['ConfigMap', 'configMapGenerator'],
    ['Secret', 'secretGenerator'],
  ] as const) {
    for (const generator of asList(kustomization[key])) {
      rendered.generated.add(`${kind}/${text(generator.name)}`);
      const literals = (generator.literals as string[] | undefined) ?? [];
      if (literals.length > 0) {
        const values = literals.map((literal) => literal.split('=')).map(([key, ...rest]) => [key, rest.join('=')]);
        rendered.literals.set(text(generator.name), new Map(values as Array<[string, string]>));
      }
      for (const source of (generator.files as string[] | undefined) ?? []) {
        const path = resolve(directory, source.split('=').pop() ?? source);
        if (!existsSync(path)) problem(where, `${key} ${text(generator.name)}: file ${source} does not exist`);
      }
    }
  }
  for (const image of asList(kustomization.images)) rendered.images.add(text(image.name));
  return rendered;
}

function podSpecOf(object: Node): Node {
  return asNode(asNode(asNode(object.spec).template).spec);
}

function checkWorkloads(overlay: string, rendered: Rendered, secretsComeFromOutside: boolean): void {
  const declared = new Set([
    ...rendered.generated,
    ...rendered.objects.map(({ object }) => `${text(object.kind)}/${text(asNode(object.metadata).name)}`),
    ...provisionedSecrets(rendered).map((name) => `Secret/${name}`),
  ]);
  const workloads = rendered.objects.filter(({ object }) => ['Deployment', 'StatefulSet'].includes(text(object.kind)));
  const deployments = new Map(
    workloads
      .filter(({ object }) => object.kind === 'Deployment')
      .map((entry) => [text(asNode(entry.object.metadata).name), entry]),
  );
  for (const app of apps) if (!deployments.has(app)) problem(overlay, `no Deployment for apps/${app}`);

  for (const { object, file } of workloads) {
    const name = text(asNode(object.metadata).name);
    const where = `${file} ${text(object.kind)}/${name}`;
    const spec = asNode(object.spec);
    const selector = asNode(asNode(spec.selector).matchLabels);
    const labels = asNode(asNode(asNode(spec.template).metadata).labels);
    for (const [key, value] of Object.entries(selector)) {
      if (labels[key] !== value) problem(where, `selector ${key}=${String(value)} does not match the pod labels`);
    }
    const pod = podSpecOf(object);
    for (const container of asList(pod.containers)) {
      const at = `${where} container ${text(container.name)}`;
      if (!container.readinessProbe) problem(at, 'needs a readinessProbe');
      const resources = asNode(container.resources);
      const requests = asNode(resources.requests);
      if (!requests.cpu || !requests.memory) problem(at, 'needs cpu and memory requests');
      if (!asNode(resources.limits).memory) problem(at, 'needs a memory limit');
      const image = text(container.image);
      if (object.kind === 'Deployment') {
        if (!rendered.images.has(image)) problem(at, `image "${image}" is not managed by an images: entry`);
        const service = asList(container.env).find((variable) => variable.name === 'SERVICE')?.value;
        if (service !== name) problem(at, `SERVICE must be "${name}", is "${String(service)}"`);
        if (!apps.includes(name)) problem(at, `there is no apps/${name}`);
      }
      const references = [
        ...asList(container.envFrom).flatMap((source) => [
          ['ConfigMap', text(asNode(source.configMapRef).name)],
          ['Secret', text(asNode(source.secretRef).name)],
        ]),
        ...asList(container.env).flatMap((variable) => {
          const from = asNode(variable.valueFrom);
          const secret = asNode(from.secretKeyRef);
          return [
            ['ConfigMap', text(asNode(from.configMapKeyRef).name)],
            // An optional Secret (`optional: true`) need not exist: the pod starts without the variable.
            ['Secret', secret.optional === true ? '' : text(secret.name)],
          ];
        }),
        ...asList(pod.volumes).map((volume) => ['ConfigMap', text(asNode(volume.configMap).name)]),
        ...asList(pod.volumes).map((volume) => ['Secret', text(asNode(volume.secret).secretName)]),
      ].filter(([, referenced]) => referenced !== '');
      for (const [kind, referenced] of references) {
        if (declared.has(`${kind}/${referenced}`)) continue;
        if (kind === 'Secret' && secretsComeFromOutside) continue;
        problem(at, `references ${kind} "${referenced}", which ${overlay} neither declares nor generates`);
      }
    }
  }

  for (const { object, file } of rendered.objects.filter(({ object }) => object.kind === 'Service')) {
    const selector = asNode(asNode(object.spec).selector);
    const selected = workloads.some(({ object: workload }) => {
      const labels = asNode(asNode(asNode(asNode(workload.spec).template).metadata).labels);
      return Object.entries(selector).every(([key, value]) => labels[key] === value);
    });
    if (!selected) problem(`${file} Service/${text(asNode(object.metadata).name)}`, 'selects no workload');
  }
}

/** The Secrets Job/provision-trust writes: the names its Role may update. Empty without that Job. */
function provisionedSecrets(rendered: Rendered): string[] {
  const hasJob = rendered.objects.some(
    ({ object }) => object.kind === 'Job' && text(asNode(object.metadata).name) === PROVISIONER,
  );
  const role = rendered.objects.find(
    ({ object }) => object.kind === 'Role' && text(asNode(object.metadata).name) === PROVISIONER,
  );
  if (!hasJob || !role) return [];
  return asList(role.object.rules).flatMap((rule) => (rule.resourceNames as string[] | undefined) ?? []);
}

const PROVISIONER = 'provision-trust';

/** Authentication in a rendered overlay: who mounts which credentials. */
function checkKubernetesTrust(overlay: string, rendered: Rendered): void {
  const job = rendered.objects.find(
    ({ object }) => object.kind === 'Job' && text(asNode(object.metadata).name) === PROVISIONER,
  );
  const command = JSON.stringify(asList(podSpecOf(job?.object ?? {}).containers)[0]?.command ?? '');
  if (!command.includes('provision-trust.js') || !command.includes('--kubernetes')) {
    problem(overlay, `needs Job/${PROVISIONER} running dist/deploy/docker/provision-trust.js --kubernetes`);
  }
  const provisioned = provisionedSecrets(rendered);
  const credentialsDir = rendered.literals.get('ioa-config')?.get('NATS_CREDENTIALS_DIR');
  if (!credentialsDir) problem(overlay, 'ioa-config must set NATS_CREDENTIALS_DIR');
  const workloads = rendered.objects.filter(({ object }) => ['Deployment', 'StatefulSet'].includes(text(object.kind)));
  for (const { object, file } of workloads) {
    const name = text(asNode(object.metadata).name);
    const where = `${file} ${text(object.kind)}/${name}`;
    const pod = podSpecOf(object);
    const secretVolumes = new Map(
      asList(pod.volumes)
        .filter((volume) => volume.secret)
        .map((volume) => [text(volume.name), text(asNode(volume.secret).secretName)]),
    );
    const mounted = [...secretVolumes.values()];
    const mountPath = (secret: string) => {
      const volume = [...secretVolumes].find(([, secretName]) => secretName === secret)?.[0];
      const mounts = asList(pod.containers).flatMap((container) => asList(container.volumeMounts));
      return text(mounts.find((mount) => mount.name === volume)?.mountPath);
    };
    if (mounted.includes('ioa-trust-root')) problem(where, 'must not mount ioa-trust-root (it holds every seed)');
    for (const secret of mounted) {
      if (secret.startsWith('ioa-') && secret !== 'ioa-database' && !provisioned.includes(secret)) {
        problem(where, `mounts Secret ${secret}, which Job/${PROVISIONER} does not write`);
      }
    }
    if (name === 'nats') {
      if (mountPath('ioa-nats-trust') !== '/etc/nats/trust')
        problem(where, 'must mount ioa-nats-trust at /etc/nats/trust');
      continue;
    }
    if (object.kind !== 'Deployment') continue;
    const creds = mounted.filter((secret) => secret.startsWith('ioa-creds-'));
    if (creds.length !== 1 || creds[0] !== `ioa-creds-${name}`) {
      problem(where, `must mount exactly its own credentials ioa-creds-${name}, mounts [${creds.join(', ')}]`);
    } else if (mountPath(creds[0]) !== credentialsDir) {
      problem(where, `must mount ioa-creds-${name} at NATS_CREDENTIALS_DIR (${String(credentialsDir)})`);
    }
    const env = asList(asList(pod.containers)[0]?.env);
    const trustDir = text(env.find((variable) => variable.name === 'IOA_TRUST_DIR')?.value);
    const identity = mounted.includes('ioa-identity-authority');
    if (name === 'registry' && (!identity || mountPath('ioa-identity-authority') !== trustDir)) {
      problem(where, 'must mount ioa-identity-authority at IOA_TRUST_DIR');
    }
    if (name !== 'registry' && (identity || trustDir)) problem(where, 'only the registry may have the identity keys');
  }
}

function checkDisruptionBudgets(overlay: string, rendered: Rendered): void {
  const budgets = rendered.objects.filter(({ object }) => object.kind === 'PodDisruptionBudget');
  const podLabels = (object: Node) => asNode(asNode(asNode(asNode(object.spec).template).metadata).labels);
  const selects = (budget: Node, workload: Node) => {
    const selector = asNode(asNode(asNode(budget.spec).selector).matchLabels);
    const labels = podLabels(workload);
    return Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);
  };
  const workloads = rendered.objects.filter(({ object }) => ['Deployment', 'StatefulSet'].includes(text(object.kind)));
  for (const { object: budget, file } of budgets) {
    const where = `${file} PodDisruptionBudget/${text(asNode(budget.metadata).name)}`;
    const spec = asNode(budget.spec);
    if ((spec.minAvailable === undefined) === (spec.maxUnavailable === undefined)) {
      problem(where, 'needs exactly one of minAvailable and maxUnavailable');
    }
    const selected = workloads.filter(({ object }) => selects(budget, object));
    if (selected.length === 0) problem(where, 'selects no workload');
    for (const { object } of selected) {
      const replicas = Number(asNode(object.spec).replicas ?? 1);
      // An integer minAvailable equal to the replica count forbids every eviction: a drain would never finish.
      if (typeof spec.minAvailable === 'number' && spec.minAvailable >= replicas) {
        problem(
          where,
          `minAvailable ${spec.minAvailable} leaves no pod of ${text(asNode(object.metadata).name)} evictable`,
        );
      }
    }
  }
  for (const { object, file } of workloads.filter(({ object }) => object.kind === 'Deployment')) {
    if (Number(asNode(object.spec).replicas ?? 1) < 2) continue;
    if (!budgets.some(({ object: budget }) => selects(budget, object))) {
      problem(
        `${overlay} (${file})`,
        `Deployment/${text(asNode(object.metadata).name)} has replicas but no PodDisruptionBudget`,
      );
    }
  }
}

function checkKubernetes(): void {
  const base = render(join(root, 'k8s', 'base'));
  // The base leaves the database Secret to whoever deploys it; overlays must provide it.
  checkWorkloads('k8s/base', base, true);
  checkKubernetesTrust('k8s/base', base);
  if (!/^include "trust\/auth\.conf"$/m.test(readFileSync(join(root, 'k8s', 'base', 'nats.conf'), 'utf8'))) {
    problem('k8s/base/nats.conf', 'must include "trust/auth.conf" (JWT authentication)');
  }
  checkDisruptionBudgets('k8s/base', base);
  const overlays = join(root, 'k8s', 'overlays');
  for (const overlay of existsSync(overlays) ? readdirSync(overlays) : []) {
    const rendered = render(join(overlays, overlay));
    checkWorkloads(`k8s/overlays/${overlay}`, rendered, false);
    checkKubernetesTrust(`k8s/overlays/${overlay}`, rendered);
    checkDisruptionBudgets(`k8s/overlays/${overlay}`, rendered);
  }
}

checkCompose();
checkKubernetes();
if (problems.length > 0) {
  console.error(`deploy manifests: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
} else {
  console.log(`deploy manifests: docker-compose.yml and k8s/ are consistent (${apps.length} apps: ${apps.join(', ')})`);
}
