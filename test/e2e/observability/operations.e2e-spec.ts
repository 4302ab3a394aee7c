import { DatabaseService } from '@nestclaw/db';
import { MetricsListener } from '../../../apps/gateway/src/observability/metrics.listener';
import { RetentionService } from '../../../apps/gateway/src/operations/retention.service';
import { Harness, startHarness, TEST_TOKEN } from '../../support/gateway-harness';

describe('operations: health, budgets, usage, retention, metrics listener', () => {
  let h: Harness;
  let db: DatabaseService;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        agents: { default: {}, frugal: { budget: { daily_usd: 0.000001, enforce: true } } },
        observability: { metrics: { listener: { host: '127.0.0.1', port: 0 } } },
        retention: { conversation_log_days: 30, inbound_messages_days: 7 },
      },
    });
    db = h.gateway.app.get(DatabaseService);
  });
  afterAll(() => h.stop());

  it('answers liveness without a token and without touching the database', async () => {
    const res = await fetch(`${h.gateway.url}/health/live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('is ready when the database answers and every migration is applied, not ready while one is pending', async () => {
    expect((await fetch(`${h.gateway.url}/health/ready`)).status).toBe(200);
    // A migration this version ships that the database does not have yet (another instance still applying it).
    const { rows } = await db.pool.query<Record<string, unknown>>(
      'DELETE FROM _migrations WHERE name = (SELECT max(name) FROM _migrations) RETURNING *',
    );
    try {
      const res = await fetch(`${h.gateway.url}/health/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'not_ready', database: 'up', pendingMigrations: 1 });
    } finally {
      const cols = Object.keys(rows[0]);
      await db.pool.query(
        `INSERT INTO _migrations (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
        cols.map((c) => rows[0][c]),
      );
    }
  });

  it('refuses new turns of an agent that spent its enforced budget, with budget_exceeded', async () => {
    expect((await h.api('/v1/chat', { json: { message: 'first', agentId: 'frugal' } })).status).toBe(200);
    const res = await h.api('/v1/chat', { json: { message: 'second', agentId: 'frugal' } });
    expect(res.status).toBe(429);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('budget_exceeded');
    expect(body.error.message).toMatch(/daily budget/);
    expect((await h.api('/v1/chat', { json: { message: 'others still chat' } })).status).toBe(200);
  });

  it('reports spend per agent and day in /v1/usage', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const res = await h.api('/v1/usage?groupBy=agent_day');
    const { groups } = (await res.json()) as { groups: { key: string; costUsd: number }[] };
    expect(groups.find((g) => g.key === `frugal ${day}`)?.costUsd).toBeGreaterThan(0);
    expect(groups.find((g) => g.key === `default ${day}`)?.costUsd).toBeGreaterThan(0);
  });

  it('removes rows past their retention and keeps recent ones and unanswered inbound messages', async () => {
    const old = "now() - interval '90 days'";
    await db.pool.query(
      `INSERT INTO conversation_log (direction, channel, content, created_at) VALUES ('in', 'http', 'old', ${old}), ('in', 'http', 'recent', now())`,
    );
    await db.pool.query(
      `INSERT INTO inbound_messages (channel, platform_message_id, chat_id, sender_id, session_key, payload, status, received_at)
       VALUES ('telegram', 'r-1', '1', '1', 'k', '{}', 'answered', ${old}), ('telegram', 'r-2', '1', '1', 'k', '{}', 'received', ${old})`,
    );
    const removed = await h.gateway.app.get(RetentionService).sweep();
    expect(removed.conversation_log).toBeGreaterThanOrEqual(1);
    expect(removed.inbound_messages).toBe(1);
    const log = await db.pool.query(`SELECT content FROM conversation_log WHERE content IN ('old', 'recent')`);
    expect(log.rows.map((r: { content: string }) => r.content)).toEqual(['recent']);
    const inbound = await db.pool.query(`SELECT platform_message_id FROM inbound_messages WHERE platform_message_id LIKE 'r-%'`);
    expect(inbound.rows.map((r: { platform_message_id: string }) => r.platform_message_id)).toEqual(['r-2']);
    const text = await (await h.api('/metrics')).text();
    expect(text).toMatch(/nestclaw_retention_deleted_rows_total\{table="inbound_messages"\} 1/);
  });

  it('serves /metrics on the separate listener only with a token', async () => {
    const port = h.gateway.app.get(MetricsListener).port;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    const ok = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('nestclaw_turns_total');
    expect((await fetch(`http://127.0.0.1:${port}/other`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(404);
  });
});
