import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigService } from '@nestclaw/config';
import { Harness, startHarness } from '../support/gateway-harness';

interface Check {
  name: string;
  status: string;
  message: string;
  fix?: string;
}

/** `GET /doctor` judges the config file as the next start would read it, not the copy in memory. */
describe('GET /doctor checks the config file on disk', () => {
  let h: Harness;
  let path: string;
  let valid: string;
  const doctor = async () => (await (await h.api('/doctor')).json()) as { ok: boolean; checks: Check[] };
  const configCheck = async () => (await doctor()).checks.find((c) => c.name === 'config');

  beforeAll(async () => {
    h = await startHarness();
    path = join(h.home, 'config.yaml');
    valid = readFileSync(path, 'utf8');
  });
  afterAll(() => h.stop());
  afterEach(() => writeFileSync(path, valid));

  it('passes while the file on disk is valid', async () => {
    expect(await configCheck()).toEqual({ name: 'config', status: 'ok', message: `loaded ${path}` });
  });

  it('fails with the validation errors and a fix once a reload was refused, and says the gateway runs on its last valid config', async () => {
    writeFileSync(path, valid.replace('provider: openai-compatible', 'provider: opneai'));
    // What the file watcher does on save: the reload is refused and the running config kept.
    const config = h.gateway.app.get(ConfigService);
    expect(await config.reload()).toEqual([]);
    expect(config.get().models.fake.provider).toBe('openai-compatible');

    const report = await doctor();
    expect(report.ok).toBe(false);
    const check = report.checks.find((c) => c.name === 'config');
    expect(check).toMatchObject({ status: 'fail', fix: expect.stringContaining(path) });
    expect(check?.message).toContain(`Invalid configuration (${path})`);
    expect(check?.message).toContain('models.fake.provider: unknown provider "opneai" — did you mean "openai"? Known: openai, deepseek');
    expect(check?.message).toContain('The running gateway keeps using its last valid configuration');
    // ... which it does: turns still reach the model configured before the edit.
    const res = await h.api('/v1/chat', { json: { message: 'still answering' } });
    expect(((await res.json()) as { reply: string }).reply).toBe('echo: still answering');
  });

  it('fails on a file that is not YAML', async () => {
    writeFileSync(path, 'models: [unclosed\n');
    expect(await configCheck()).toMatchObject({ status: 'fail', message: expect.stringContaining('not valid YAML') });
  });

  it('passes again once the file is fixed', async () => {
    writeFileSync(path, 'models: { fake: { provider: opneai, model: x } }\n');
    expect((await configCheck())?.status).toBe('fail');
    writeFileSync(path, valid);
    expect((await configCheck())?.status).toBe('ok');
  });
});
