import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { TmuxDriver } from '@nestclaw/cli-bridge';
import type { ConfigService } from '@nestclaw/config';
import { eventually } from '../../support/eventually';
import { describeWithHostTools } from '../../support/host-tools';

/** `clis.<name>.env` holds secrets (an API key) for that CLI only: real tmux, on a socket of the test's own. */
describeWithHostTools(['tmux'], "CLI bridge: one CLI's env stays out of another's", () => {
  const tmux = new TmuxDriver({
    options: { env: { NESTCLAW_TMUX_SOCKET: `nestclaw-env-${randomUUID().slice(0, 8)}` } },
  } as unknown as ConfigService);
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', LANG: 'C.UTF-8', TERM: 'xterm-256color' };

  afterAll(async () => {
    for (const s of await tmux.list()) await tmux.kill(s);
  });

  it("starts a second CLI without the first one's secrets (tmux kept the environment that started its server as the global one)", async () => {
    await tmux.create({
      name: 'nestclaw-first-1',
      dir: '/tmp',
      command: 'sleep',
      args: ['60'],
      env: { ...base, FIRST_CLI_KEY: 'sk-first-secret' },
    });
    await tmux.create({
      name: 'nestclaw-second-1',
      dir: '/tmp',
      command: 'sh',
      args: ['-c', 'env; echo env-done; sleep 60'],
      env: { ...base, SECOND_CLI_VAR: 'second' },
    });
    const screen = await eventually('the second CLI printed its environment', async () => {
      const s = await tmux.capture('nestclaw-second-1');
      return s.includes('env-done') && s;
    });
    expect(screen).toContain('SECOND_CLI_VAR=second');
    expect(screen).not.toContain('FIRST_CLI_KEY');
  });

  it("never puts an env value in any process's arguments (/proc/<pid>/cmdline is world-readable), and leaves no env file behind", async () => {
    const secret = `sk-cmdline-${randomUUID()}`;
    const quoted = `it's "密钥" $HOME \`x\``;
    const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('nestclaw-cli-env-')));
    // Every process's arguments (the tmux client's while it starts a session, the server's, the CLI's),
    // read over and over while sessions start: a client lives a few milliseconds.
    const leaks = new Set<string>();
    let starting = true;
    const watcher = (async () => {
      while (starting) {
        for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
          let cmdline: string;
          try {
            cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          } catch {
            continue; // the process ended while we looked
          }
          if (cmdline.includes(secret)) leaks.add(cmdline.replaceAll('\0', ' '));
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 1; i <= 5; i++)
      await tmux.create({
        name: `nestclaw-cmdline-${i}`,
        dir: '/tmp',
        command: 'sh',
        args: ['-c', 'printf "key=%s|quoted=%s|\\n" "$CMDLINE_KEY" "$QUOTED_VAR"; echo env-done; sleep 60'],
        env: { ...base, CMDLINE_KEY: secret, QUOTED_VAR: quoted },
      });
    // The CLIs got both values exactly, quotes, Chinese and $ included.
    const screen = await eventually('the CLI printed its environment', async () => {
      const s = await tmux.capture('nestclaw-cmdline-5');
      return s.includes('env-done') && s;
    });
    starting = false;
    await watcher;
    expect(screen).toContain(`key=${secret}|quoted=${quoted}|`);
    expect([...leaks]).toEqual([]);
    const left = readdirSync(tmpdir()).filter((f) => f.startsWith('nestclaw-cli-env-') && !before.has(f));
    expect(left.filter((f) => existsSync(`${tmpdir()}/${f}/env`))).toEqual([]);
  });
});
