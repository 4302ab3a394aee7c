import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { join } from 'node:path';
import { METRIC, NestclawMetrics, RUNTIME_METRIC } from '@nestclaw/observability';
import { describeWithHostTools } from '../../support/host-tools';
import { alertExprs, dashboards, deployDir, metricNames, panelQueries } from '../../support/deploy-queries';

/** Every series name a scrape of nestclaw can contain (histograms with their _bucket/_sum/_count). */
async function exportedNames(): Promise<Set<string>> {
  const m = new NestclawMetrics('test');
  const out = new Set<string>();
  for (const metric of await m.registry.getMetricsAsJSON()) {
    out.add(metric.name);
    if (metric.type === ('histogram' as never)) for (const s of ['_bucket', '_sum', '_count']) out.add(metric.name + s);
  }
  return out;
}

describe('dashboards and alert rules', () => {
  it('name only metrics the code exports', async () => {
    const exported = await exportedNames();
    const used = [
      ...panelQueries().map((q) => ({ where: `${q.dashboard} / ${q.panel}`, expr: q.expr })),
      ...alertExprs().map((a) => ({ where: `alert ${a.alert}`, expr: a.expr })),
      ...dashboards().flatMap(({ json }) =>
        json.templating.list.filter((v) => v.definition).map((v) => ({ where: `${json.title} / $${v.name}`, expr: v.definition! })),
      ),
    ];
    const missing = used.flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((n) => !exported.has(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(missing).toEqual([]);
  });

  it('the names file lists only metrics the registry has', async () => {
    const exported = await exportedNames();
    const listed = [...Object.values(METRIC), ...Object.values(RUNTIME_METRIC)];
    expect(listed.filter((n) => !exported.has(n))).toEqual([]);
  });

  it('every dashboard has a unique uid, the datasource variable and at least one query per panel', () => {
    const all = dashboards();
    expect(new Set(all.map((d) => d.json.uid)).size).toBe(all.length);
    for (const { json } of all) {
      expect(json.templating.list.map((v) => v.name)).toContain('datasource');
      for (const p of json.panels.filter((x) => x.type !== 'row')) expect(p.targets?.length).toBeGreaterThan(0);
    }
  });

  it('defines every template variable a panel uses', () => {
    const undefinedVars = dashboards().flatMap(({ json }) => {
      const defined = new Set(json.templating.list.map((v) => v.name));
      return json.panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) =>
          [...t.expr.matchAll(/\$(\w+)/g)]
            .map((m) => m[1])
            .filter((v) => !v.startsWith('__') && !defined.has(v))
            .map((v) => `${json.title} / ${p.title}: $${v}`),
        ),
      );
    });
    expect(undefinedVars).toEqual([]);
  });

  it('mounts into docker compose only files that exist, and provisions every dashboard', () => {
    const compose = parse(readFileSync(join(deployDir(), '..', 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, { volumes?: string[] }>;
    };
    for (const name of ['prometheus', 'grafana']) {
      for (const v of compose.services[name].volumes ?? []) {
        const src = v.split(':')[0];
        if (src.startsWith('./')) expect(existsSync(join(deployDir(), '..', src))).toBe(true);
      }
    }
    expect(compose.services.grafana.volumes).toContain('./deploy/grafana/dashboards:/var/lib/grafana/dashboards/nestclaw:ro');
  });

  it('has a unit test for every alert', () => {
    const tests = readFileSync(join(deployDir(), 'prometheus', 'alerts.test.yml'), 'utf8') as string;
    for (const { alert } of alertExprs()) expect(tests).toContain(`alertname: ${alert}`);
  });
});

describeWithHostTools(['promtool'], 'alert rules checked by promtool', ({ promtool }) => {
  it('passes promtool check rules', () => {
    const out = execFileSync(promtool!, ['check', 'rules', join(deployDir(), 'prometheus', 'alerts.yml')], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
  });

  it('passes the alert unit tests (promtool test rules)', () => {
    const out = execFileSync(promtool!, ['test', 'rules', 'alerts.test.yml'], { cwd: join(deployDir(), 'prometheus'), encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
  });
});
