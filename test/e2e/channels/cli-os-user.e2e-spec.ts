import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import { describeWithHostTools } from '../../support/host-tools';
import { Harness, startHarness } from '../../support/gateway-harness';

const FAKE_CLI = join(__dirname, '../../fixtures/fake-cli.js');
const asRoot = process.getuid?.() === 0;

/**
 * Issue 26 item 7: "the CLI runs as a configured user". `clis.<name>.user` starts the CLI through setpriv
 * as that user (here `nobody`, uid 65534), so driving it from chat has that user's rights, not the
 * gateway's. A gateway that is not root cannot switch and says so instead of starting the CLI as itself.
 */
describeWithHostTools(['tmux'], 'CLI bridge: a CLI configured to run as another operating-system user', () => {
  let h: Harness;
  let workDir: string;
  let tmux: TmuxDriver;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'nestclaw-cli-user-'));
    chmodSync(workDir, 0o755); // nobody must be able to enter it
    const fake = { command: process.execPath, args: [FAKE_CLI], allowed_dirs: [workDir], done_after: '800ms', watchdog: '6s' };
    h = await startHarness({
      env: { NESTCLAW_TMUX_SOCKET: `nestclaw-user-test-${process.pid}` },
      config: { clis: { asnobody: { ...fake, user: 'nobody' }, ghost: { ...fake, user: 'no-such-user-x' } } },
    });
    tmux = h.gateway.app.get(TmuxDriver);
  });
  afterAll(async () => {
    for (const s of (await tmux?.list()) ?? []) await tmux.kill(s);
    await h?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const chat = async (body: Record<string, unknown>) => {
    const res = await h.api('/v1/chat', { json: body });
    const json = (await res.json()) as { sessionId: string; reply: string };
    if (res.status !== 200) throw new Error(`POST /v1/chat answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };

  // CI and this machine run the suite as root; a newcomer's run as another user checks the refusal instead.
  it(asRoot ? 'runs the CLI as that user, with its home' : 'refuses to start the CLI as itself when the gateway is not root', async () => {
    const bound = await chat({ message: '/cli use asnobody' });
    if (!asRoot) {
      expect(bound.reply).toMatch(
        /^asnobody is configured to run as nobody \(uid 65534\), but the gateway runs as uid \d+ .*Run the gateway as root/,
      );
      expect(await tmux.list()).toEqual([]);
      return;
    }
    expect(bound.reply).toMatch(/^Bound to asnobody/);
    const who = await chat({ message: 'whoami', sessionId: bound.sessionId });
    expect(who.reply).toBe('uid: 65534 home: /tmp');
  });

  it('names a configured user this machine does not have, and starts nothing', async () => {
    const before = await tmux.list();
    const { reply } = await chat({ message: '/cli use ghost' });
    expect(reply).toBe(
      'ghost is configured to run as user "no-such-user-x", and this machine has no such user. Create it or change clis.ghost.user.',
    );
    expect(await tmux.list()).toEqual(before);
  });
});
