import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freeLoopbackPort } from '@nestclaw/common';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeTelegramServer } from '../../fixtures/fake-telegram.server';
import { TEST_TOKEN } from '../../support/gateway-harness';
import { describeWithHostTools } from '../../support/host-tools';
import { concrete, panelQueries } from '../../support/deploy-queries';
import { ObservedGateway, startObservedGateway } from '../../support/observed-gateway';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The real thing: the built gateway, a real Prometheus (Debian's package) scraping it with a token
 * from a credentials file, a few turns of every kind, then every dashboard panel's query.
 */
// The shell tool (bubblewrap) feeds the tool-refusal panels.
describeWithHostTools(['prometheus', 'promtool', 'bubblewrap'], 'dashboards against a real Prometheus scraping the gateway', (bin) => {
  let o: ObservedGateway;
  let tg: FakeTelegramServer;
  let prom: ChildProcess;
  let promUrl: string;
  let dir: string;

  const query = async (expr: string) => {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    return (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  };

  beforeAll(async () => {
    tg = new FakeTelegramServer();
    await tg.start();
    o = await startObservedGateway({
      providers: { primary: 'flaky', fallback: ['fake'], retry: { max_attempts: 2, base_delay: 10, max_delay: 50 } },
      agents: { default: { tools: ['current_time', 'shell', 'file_list'], budget: { daily_usd: 100, monthly_usd: 1000 } } },
      tools: { approval: { required: ['file_list'] }, bubblewrap: { path: bin.bubblewrap } },
      channels: { telegram: { enabled: true, token: tg.token, api_root: tg.url, allow_from: ['42'], poll_timeout: 1 } },
    });
    dir = mkdtempSync(join(tmpdir(), 'nestclaw-prom-'));
    writeFileSync(join(dir, 'token'), TEST_TOKEN);
    const target = new URL(o.gw.url).host;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: nestclaw
    authorization: { credentials_file: ${join(dir, 'token')} }
    static_configs: [{ targets: ['${target}'] }]
`,
    );
    const port = await freeLoopbackPort();
    promUrl = `http://127.0.0.1:${port}`;
    prom = spawn(
      bin.prometheus!,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    let spawnError: Error | undefined;
    prom.on('error', (e) => (spawnError = e));
    for (let i = 0; i < 100 && (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.status !== 200; i++) await sleep(100);
    if (spawnError) throw new Error(`prometheus did not start (${spawnError.message}): apt-get install prometheus (CI does)`);

    // A turn of every kind: plain, streamed, with a tool, through a fallback, failing, with an approval, from Telegram.
    await o.api('/v1/chat', { message: 'hello' });
    await (await o.api('/v1/chat', { message: 'stream please', stream: true })).text();
    await o.api('/v1/chat', { message: 'time? [tool:current_time {}]' });
    o.llm.enqueue({ kind: 'error', status: 500 }, { kind: 'error', status: 500 });
    await o.api('/v1/chat', { message: 'after a failover' });
    o.llm.enqueue({ kind: 'error', status: 400 });
    await o.api('/v1/chat', { message: 'this one fails' });
    await o.api('/v1/chat', { message: 'refused by policy [tool:shell {"command":"cat /etc/shadow"}]' });
    const pending = o.api('/v1/chat', { message: 'list [tool:file_list {"path":"."}]' });
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++, await sleep(100)) {
      const { approvals } = (await (await o.api('/v1/approvals?status=pending')).json()) as { approvals: { id: string }[] };
      id = approvals[0]?.id;
    }
    await o.api(`/v1/approvals/${id}`, { decision: 'deny' });
    await pending;
    tg.dm({ id: 42, first_name: 'Ann' }, 'hi from telegram');
    for (let i = 0; i < 100 && tg.sentTo(42).length === 0; i++) await sleep(100);
    // rate() and increase() need two samples of a series: wait for two scrapes after the last event (Telegram's delivery).
    for (let i = 0; i < 300; i++, await sleep(100)) {
      const r = await query('min(count_over_time(nestclaw_channel_delivery_duration_seconds_count[1m]))');
      if (Number((r.data?.result[0] as { value?: [number, string] } | undefined)?.value?.[1] ?? 0) >= 3) break;
    }
  }, 180_000);

  afterAll(async () => {
    prom?.kill('SIGTERM');
    await o?.stop();
    await tg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('scrapes the gateway with the token from a credentials file', async () => {
    const r = await query('up{job="nestclaw"}');
    expect(r.data?.result).toEqual([expect.objectContaining({ value: [expect.any(Number), '1'] })]);
  });

  it('answers every dashboard panel query with data', async () => {
    const empty: string[] = [];
    for (const q of panelQueries()) {
      const r = await query(concrete(q.expr));
      if (r.status !== 'success') empty.push(`${q.dashboard} / ${q.panel}: ${r.error}`);
      else if (!r.data?.result.length) empty.push(`${q.dashboard} / ${q.panel}: no data for ${q.expr}`);
    }
    expect(empty).toEqual([]);
  });

  it('passes promtool check metrics on a real scrape', async () => {
    const text = await (await o.api('/metrics')).text();
    const out = execFileSync(bin.promtool!, ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    expect(out.trim()).toBe('');
  });
});
