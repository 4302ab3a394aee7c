import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { deployDir } from '../../support/deploy-queries';
import { renderChart } from '../../support/helm-template';

type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
};
type Container = {
  livenessProbe: { httpGet: { path: string } };
  readinessProbe: { httpGet: { path: string } };
  envFrom: { secretRef: { name: string } }[];
  volumeMounts: { name: string; mountPath: string }[];
};
type PodSpec = {
  containers: Container[];
  volumes: { name: string; emptyDir?: unknown }[];
  affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: { podAffinityTerm: { topologyKey: string } }[] } };
};
type StatefulSetSpec = {
  replicas: number;
  podManagementPolicy: string;
  template: { spec: PodSpec };
  volumeClaimTemplates: { metadata: { name: string }; spec: { storageClassName?: string; resources: { requests: { storage: string } } } }[];
};

/** The values an install must give: the chart has no default database or token. */
const REQUIRED = { databaseUrl: 'postgres://nestclaw:s3cret@pg:5432/nestclaw', token: 'owner-token-0123456789abcdef' };
const chart = () => join(deployDir(), 'helm', 'nestclaw');
const render = (overrides = {}) => renderChart(chart(), 'claw', { ...REQUIRED, ...overrides }).map((d) => parse(d) as Doc);
const workload = (docs = render()) => docs.find((d) => d.kind === 'StatefulSet')!.spec as unknown as StatefulSetSpec;

describe('helm chart deploy/helm/nestclaw', () => {
  it('renders a StatefulSet, two Services, a PodDisruptionBudget, Secret and ConfigMap with names from the release', () => {
    const docs = render();
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'ConfigMap/claw-config',
      'PodDisruptionBudget/claw',
      'Secret/claw-secrets',
      'Service/claw',
      'Service/claw-pods',
      'StatefulSet/claw',
    ]);
    for (const d of docs) expect(d.apiVersion).toBeTruthy();
  });

  it('separates liveness (no database) from readiness (database and migrations)', () => {
    const c = workload().template.spec.containers[0];
    expect(c.livenessProbe.httpGet.path).toBe('/health/live');
    expect(c.readinessProbe.httpGet.path).toBe('/health/ready');
  });

  it('ships config.yaml as valid YAML in the ConfigMap', () => {
    const cm = render().find((d) => d.kind === 'ConfigMap')!;
    expect(parse(cm.data!['config.yaml'])).toMatchObject({ observability: { metrics: { enabled: true } } });
  });

  it('leaves the ServiceMonitor out by default, so a cluster without the Prometheus Operator installs the chart', () => {
    expect(render().map((d) => d.kind)).not.toContain('ServiceMonitor');
  });

  it('scrapes /metrics with a bearer token from the Secret when the ServiceMonitor is enabled', () => {
    const sm = render({ serviceMonitor: { enabled: true } }).find((d) => d.kind === 'ServiceMonitor')!;
    const ep = (sm.spec as { endpoints: { path: string; authorization: { credentials: { name: string; key: string } } }[] }).endpoints[0];
    expect(ep.path).toBe('/metrics');
    expect(ep.authorization.credentials).toEqual({ name: 'claw-secrets', key: 'metrics-token' });
  });

  it('refuses to render without a database URL or an owner token, instead of installing change-me secrets', () => {
    expect(() => renderChart(chart(), 'claw', { token: REQUIRED.token })).toThrow(/databaseUrl is required/);
    expect(() => renderChart(chart(), 'claw', { databaseUrl: REQUIRED.databaseUrl })).toThrow(/token is required/);
    const values = parse(readFileSync(join(chart(), 'values.yaml'), 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(values)).not.toMatch(/change-me/);
  });

  it('passes every provider key to the pods, not only OPENAI_API_KEY', () => {
    const keys = { OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-ant', GEMINI_API_KEY: 'g-1', DEEPSEEK_API_KEY: '12345' };
    const docs = render({ providerKeys: keys, providerKeysSecret: 'my-provider-keys' });
    const secret = docs.find((d) => d.kind === 'Secret')!;
    expect(secret.stringData).toMatchObject(keys);
    // Each of the Secret's keys reaches the container as an environment variable (envFrom), and so do a managed Secret's.
    expect(workload(docs).template.spec.containers[0].envFrom.map((e) => e.secretRef.name)).toEqual(['claw-secrets', 'my-provider-keys']);
    expect(render().find((d) => d.kind === 'Secret')!.stringData).not.toHaveProperty('OPENAI_API_KEY');
  });

  it('keeps each pod home on a PersistentVolumeClaim, never an emptyDir', () => {
    const spec = workload(render({ persistence: { size: '5Gi', storageClassName: 'fast' } }));
    expect(spec.volumeClaimTemplates[0].metadata.name).toBe('home');
    expect(spec.volumeClaimTemplates[0].spec).toMatchObject({ storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } });
    expect(spec.template.spec.containers[0].volumeMounts).toContainEqual({ name: 'home', mountPath: '/data' });
    expect(spec.template.spec.volumes.filter((v) => v.emptyDir)).toEqual([]);
    expect(workload().volumeClaimTemplates[0].spec).not.toHaveProperty('storageClassName');
  });

  it('runs three replicas by default, started together, spread over nodes, with at most one voluntarily down', () => {
    const docs = render();
    const spec = workload(docs);
    expect(spec.replicas).toBe(3);
    expect(spec.podManagementPolicy).toBe('Parallel');
    const terms = spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution;
    expect(terms[0].podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
    expect(docs.find((d) => d.kind === 'PodDisruptionBudget')!.spec).toMatchObject({ maxUnavailable: 1 });
  });

  it('renders any replica count with the same shared Secret and database', () => {
    for (const replicas of [2, 5]) {
      const docs = render({ replicaCount: replicas });
      expect(workload(docs).replicas).toBe(replicas);
      expect(docs.find((d) => d.kind === 'Secret')!.stringData!.DATABASE_URL).toBe(REQUIRED.databaseUrl);
    }
  });
});
