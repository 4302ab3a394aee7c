import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '@nestclaw/common';

export interface PanelQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

export const deployDir = () => join(packageRoot(), 'deploy');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
}

export function dashboards(): { file: string; json: Dashboard }[] {
  const dir = join(deployDir(), 'grafana', 'dashboards');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((file) => ({ file, json: JSON.parse(readFileSync(join(dir, file), 'utf8')) as never }));
}

export function panelQueries(): PanelQuery[] {
  return dashboards().flatMap(({ json }) =>
    json.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ dashboard: json.title, panel: p.title, expr: t.expr }))),
  );
}

export function alertExprs(): { alert: string; expr: string }[] {
  const doc = parse(readFileSync(join(deployDir(), 'prometheus', 'alerts.yml'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ alert: r.alert, expr: r.expr })));
}

/** Grafana's variables as a test sets them: every agent/model/channel/job, a 1m rate window. */
export function concrete(expr: string): string {
  return expr
    .replace(/\$__rate_interval/g, '1m')
    .replace(/\$__interval/g, '15s')
    .replace(/\$__range/g, '1h')
    .replace(/\$(agent|model|channel|job)\b/g, '.*');
}

/** Metric names a PromQL expression reads (ours, GenAI's, Node's and Prometheus's `up`). */
export function metricNames(expr: string): string[] {
  const names = expr.match(/\b(nestclaw_[a-z0-9_]+|gen_ai_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+)\b/g) ?? [];
  return [...new Set(names)];
}
