import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Harness, startHarness } from '../support/gateway-harness';

type ErrorBody = { error: { code: string; message: string } };
interface ConfigView {
  version: string;
  sections: { name: string; fileYaml: string }[];
}

/**
 * The settings routes against hostile YAML and racing editors: every answer is a 2xx or a shaped 4xx,
 * a preview writes nothing, nothing pollutes a prototype, and of several saves from one version exactly
 * one lands.
 */
describe('config editing routes (GET /v1/config, preview, PUT)', () => {
  let h: Harness;
  const file = () => readFileSync(join(h.home, 'config.yaml'), 'utf8');
  const version = async () => ((await (await h.api('/v1/config')).json()) as ConfigView).version;

  beforeAll(async () => {
    h = await startHarness({ config: { prompts: { system: 'the original prompt' } } });
  });
  afterAll(() => h.stop());

  const HOSTILE_YAML = [
    // Billion laughs: the parser's alias limit refuses it instead of expanding it.
    `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`,
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    `${'- '.repeat(3000)}x`,
    '__proto__: { polluted: 1 }\n',
    'system: !!js/function "function () { return 1 }"\n',
    'system: !<tag:yaml.org,2002:js/undefined> ""\n',
    '<<: { polluted: 1 }\nsystem: x\n',
    'system: "\\u0000"\n',
    'system: [unclosed\n',
    '\t\tsystem: tabs\n',
    '%YAML 9.9\n---\nsystem: x\n',
    '--- a\n--- b\n',
    'system: x\nsystem: y\n',
    '? [a, b]\n: c\n',
    '{ "system": 1e999999 }',
    'system: 你好\n'.repeat(1000),
    '\ud800: x\n',
    'x'.repeat(200_000),
  ];

  it('answers hostile YAML with 200 or a shaped 4xx, writes nothing on preview, and stays up', async () => {
    const before = file();
    const v = await version();
    const failures: string[] = [];
    for (const section of ['prompts', 'models', 'log', 'agents']) {
      for (const yaml of HOSTILE_YAML) {
        const res = await h.api(`/v1/config/sections/${section}/preview`, { json: { yaml, version: v } });
        const body = (await res.json().catch(() => null)) as ErrorBody | null;
        const shaped = res.status === 200 || (res.status >= 400 && res.status < 500 && typeof body?.error?.message === 'string');
        if (!shaped)
          failures.push(`${section} ${JSON.stringify(yaml.slice(0, 40))} -> ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(file()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const ok = await h.api('/v1/chat', { json: { message: 'still here' } });
    expect(ok.status).toBe(200);
  }, 120_000);

  it('refuses a YAML bomb quickly, naming the section', async () => {
    const started = performance.now();
    const res = await h.api('/v1/config/sections/prompts/preview', { json: { yaml: HOSTILE_YAML[0], version: await version() } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({ code: 'config_invalid', message: expect.stringContaining('prompts') });
    process.stdout.write(`[config-editing] YAML bomb refused in ${Math.round(performance.now() - started)} ms\n`);
  });

  it('lets exactly one of several saves from the same version land; the others are told to reload', async () => {
    const v = await version();
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        h.api('/v1/config/sections/prompts', { method: 'PUT', json: { yaml: `system: editor ${n} 写的提示\n`, version: v } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    const winner = results.findIndex((r) => r.status === 200) + 1;
    expect(file()).toContain(`system: editor ${winner} 写的提示`);
    expect((await h.api('/v1/chat', { json: { message: 'which prompt?' } })).status).toBe(200);
    expect(JSON.stringify(h.llm.requests[h.llm.requests.length - 1].body.messages[0])).toContain(`editor ${winner} 写的提示`);
  });

  it('removes a section from the file when it is saved empty, and the defaults apply', async () => {
    const res = await h.api('/v1/config/sections/prompts', { method: 'PUT', json: { yaml: '', version: await version() } });
    expect(res.status).toBe(200);
    const edit = (await res.json()) as { changes: { path: string }[] };
    expect(edit.changes.map((c) => c.path)).toEqual(['prompts.system']);
    expect(file()).not.toMatch(/^prompts:/m);
    expect(file()).toContain('fake-model');
  });
});
