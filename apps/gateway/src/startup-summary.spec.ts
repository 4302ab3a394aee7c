import { loadConfig } from '@nestclaw/config';
import type { SandboxStatus } from '@nestclaw/tool';
import { NO_MODEL_HELP, StartupFacts, startupSummaryLines } from './startup-summary';

const bubblewrap: SandboxStatus = { active: 'bubblewrap', files: 'bubblewrap', unavailable: {} };

function facts(env: NodeJS.ProcessEnv, database: StartupFacts['database']): StartupFacts {
  const { config } = loadConfig('/nonexistent/config.yaml', env);
  return { url: 'http://127.0.0.1:3000', config, database, sandbox: bubblewrap };
}

describe('startupSummaryLines', () => {
  it('names a server database by host, port and name, never its user or password', () => {
    const url = 'postgres://nestclaw:s3cret-pw@db.internal:6543/nestclaw';
    const lines = startupSummaryLines(facts({ DATABASE_URL: url }, { url }));
    expect(lines).toContain('database: PostgreSQL at db.internal:6543/nestclaw');
    expect(lines.join('\n')).not.toMatch(/s3cret-pw|nestclaw:/);
  });

  it('says how to configure a model when none is', () => {
    expect(startupSummaryLines(facts({}, { url: 'x', embeddedDir: '/h/postgres' }))).toContain(NO_MODEL_HELP);
  });

  it('names the model from OPENAI_API_KEY and the enabled channels', () => {
    const env = { OPENAI_API_KEY: 'sk-test', NESTCLAW_MODEL: 'gpt-4o-mini', NESTCLAW_CHANNELS__TELEGRAM__ENABLED: 'true' };
    const lines = startupSummaryLines(facts(env, { url: 'x', embeddedDir: '/h/postgres' }));
    expect(lines).toEqual(
      expect.arrayContaining([
        'database: embedded PostgreSQL in /h/postgres',
        'model: default (openai gpt-4o-mini)',
        'channels: telegram',
        'sandbox: bubblewrap',
      ]),
    );
    expect(lines.join('\n')).not.toContain('sk-test');
  });

  it('names the channels plugins added after the built-in ones', () => {
    const env = { NESTCLAW_CHANNELS__SLACK__ENABLED: 'true' };
    const lines = startupSummaryLines({ ...facts(env, { url: 'x', embeddedDir: '/h/postgres' }), pluginChannels: ['relay'] });
    expect(lines).toContain('channels: slack, relay (plugin)');
  });
});
