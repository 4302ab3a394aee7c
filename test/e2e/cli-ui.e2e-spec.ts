import WebSocket from 'ws';
import { PairedTokenService } from '@nestclaw/security';
import { runCli } from '../support/cli-process';
import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';

/**
 * `nestclaw ui` through the real CLI process against a running gateway it finds via $NESTCLAW_HOME/gateway.json,
 * and `nestclaw token revoke` (straight to the database, not through the gateway) ending a browser's session.
 */
describe('nestclaw ui and web sessions from the CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  const env = (extra: NodeJS.ProcessEnv = {}) => ({ PATH: process.env.PATH, NESTCLAW_HOME: h.home, NO_COLOR: '1', ...extra });
  const signIn = (code: string) =>
    fetch(`${h.gateway.url}/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });

  it('prints a link to the running gateway with a one-time login code in the #fragment, good once', async () => {
    const run = await runCli(['ui'], env({ NESTCLAW_TOKEN: TEST_TOKEN }));
    expect(run.code).toBe(0);
    const m = /^Open (\S+)\/#login=([A-Za-z0-9_-]+)$/m.exec(run.stdout);
    expect(m?.[1]).toBe(h.gateway.url);
    expect(run.stdout).not.toContain(TEST_TOKEN);
    expect((await signIn(m![2])).status).toBe(200);
    expect((await signIn(m![2])).status).toBe(401);
  });

  it('says in its help that the code travels in the fragment, which is never sent to a server', async () => {
    const help = await runCli(['ui', '--help'], env());
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/#fragment/);
    expect(help.stdout).toMatch(/never send/);
  });

  it('fails with what to do when the gateway refuses the token', async () => {
    const run = await runCli(['ui'], env({ NESTCLAW_TOKEN: 'not-the-token' }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('rejected the token');
    expect(run.stdout).toBe('');
  });

  it('`nestclaw token revoke` ends the browser sessions of that token and closes their WebSocket in the gateway', async () => {
    const { token, info } = await h.gateway.app.get(PairedTokenService).issue('browser', ['chat']);
    const res = await fetch(`${h.gateway.url}/v1/auth/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const cookie = /^nestclaw_session=([^;]+)/.exec(res.headers.getSetCookie()[0])![1];
    const ws = new WebSocket(`${h.gateway.url.replace('http', 'ws')}/ws`, {
      headers: { cookie: `nestclaw_session=${cookie}`, origin: h.gateway.url },
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));

    const run = await runCli(['token', 'revoke', info.id], env(h.env));
    expect(run.code).toBe(0);
    expect(await closed).toBe(1008);
    const after = await fetch(`${h.gateway.url}/v1/auth/session`, { headers: { cookie: `nestclaw_session=${cookie}` } });
    expect(after.status).toBe(401);
  });
});
