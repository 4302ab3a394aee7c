import { randomUUID } from 'node:crypto';
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
});
