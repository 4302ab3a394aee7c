import { join } from 'node:path';
import { parse } from 'yaml';
import { deployDir } from '../../support/deploy-queries';
import { renderChart } from '../../support/helm-template';

type Doc = { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, unknown>; data?: Record<string, string> };

const chart = () => join(deployDir(), 'helm', 'nestclaw');
const render = (overrides = {}) => renderChart(chart(), 'claw', overrides).map((d) => parse(d) as Doc);

describe('helm chart deploy/helm/nestclaw', () => {
  it('renders a Deployment, Service, Secret, ConfigMap and ServiceMonitor with names from the release', () => {
    const docs = render();
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'ConfigMap/claw-config',
      'Deployment/claw',
      'Secret/claw-secrets',
      'Service/claw',
      'ServiceMonitor/claw',
    ]);
    for (const d of docs) expect(d.apiVersion).toBeTruthy();
  });

  it('separates liveness (no database) from readiness (database and migrations)', () => {
    const dep = render().find((d) => d.kind === 'Deployment')!;
    const c = (dep.spec as { template: { spec: { containers: Record<string, { httpGet: { path: string } }>[] } } }).template.spec
      .containers[0];
    expect(c.livenessProbe.httpGet.path).toBe('/health/live');
    expect(c.readinessProbe.httpGet.path).toBe('/health/ready');
  });

  it('scrapes /metrics with a bearer token from the Secret', () => {
    const sm = render().find((d) => d.kind === 'ServiceMonitor')!;
    const ep = (sm.spec as { endpoints: { path: string; authorization: { credentials: { name: string; key: string } } }[] }).endpoints[0];
    expect(ep.path).toBe('/metrics');
    expect(ep.authorization.credentials).toEqual({ name: 'claw-secrets', key: 'metrics-token' });
  });

  it('ships config.yaml as valid YAML in the ConfigMap', () => {
    const cm = render().find((d) => d.kind === 'ConfigMap')!;
    expect(parse(cm.data!['config.yaml'])).toMatchObject({ observability: { metrics: { enabled: true } } });
  });

  it('leaves the ServiceMonitor out when disabled', () => {
    expect(render({ serviceMonitor: { enabled: false } }).map((d) => d.kind)).not.toContain('ServiceMonitor');
  });
});
