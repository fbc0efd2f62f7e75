import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

/**
 * Static checks of docker-compose.yml and k8s/ that need neither a Docker engine nor a cluster (CI has neither;
 * `.ci/run` also runs `kubectl kustomize` when kubectl is installed). It follows kustomizations the way kustomize
 * does (resources, generators, images) and checks what a typo would break at deploy time:
 * - every app under apps/ has a compose service and a Deployment, running the shared image with SERVICE set to it;
 * - every Deployment has a readiness probe, CPU/memory requests and a memory limit, and selectors that match;
 * - every ConfigMap/Secret a workload references is generated or declared (Secrets may come from outside the base);
 * - every Service selects some workload;
 * - a Deployment with more than one replica has a PodDisruptionBudget that leaves a drain room to evict (so a node
 *   drain keeps the service up and still finishes), and every PodDisruptionBudget selects a workload.
 */
type Node = { [key: string]: unknown };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const problems: string[] = [];
const problem = (where: string, message: string) => problems.push(`${where}: ${message}`);

const asNode = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {});
const asList = (value: unknown): Node[] => (Array.isArray(value) ? value.map(asNode) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const apps = readdirSync(join(root, 'apps')).filter((name) => existsSync(join(root, 'apps', name, 'src', 'main.ts')));

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
  const gatewayPorts = JSON.stringify(asNode(services.gateway).ports ?? []);
  if (!gatewayPorts.includes('8080')) problem(file, 'the gateway must publish port 8080');
}

// ---------------------------------------------------------------------------------------------------------------
// k8s (a small kustomize)

interface Rendered {
  objects: Array<{ object: Node; file: string }>;
  generated: Set<string>; // "ConfigMap/name", "Secret/name"
  images: Set<string>;
}

function render(directory: string): Rendered {
  const file = join(directory, 'kustomization.yaml');
  const where = relative(root, file);
  if (!existsSync(file)) throw new Error(`${relative(root, directory)} has no kustomization.yaml`);
  const kustomization = asNode(parse(readFileSync(file, 'utf8')));
  const rendered: Rendered = { objects: [], generated: new Set(), images: new Set() };
  for (const resource of (kustomization.resources as string[] | undefined) ?? []) {
    const path = resolve(directory, resource);
    if (!existsSync(path)) {
      problem(where, `resource ${resource} does not exist`);
    } else if (statSync(path).isDirectory()) {
      const inner = render(path);
      rendered.objects.push(...inner.objects);
      inner.generated.forEach((name) => rendered.generated.add(name));
      inner.images.forEach((name) => rendered.images.add(name));
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
  checkDisruptionBudgets('k8s/base', base);
  const overlays = join(root, 'k8s', 'overlays');
  for (const overlay of existsSync(overlays) ? readdirSync(overlays) : []) {
    const rendered = render(join(overlays, overlay));
    checkWorkloads(`k8s/overlays/${overlay}`, rendered, false);
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
