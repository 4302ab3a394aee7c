import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Harness, startHarness } from '../../support/gateway-harness';

type ErrorBody = { error: { code: string; message: string } };
interface SkillView {
  name: string;
  source: string;
  editable: boolean;
  content: string;
  version: string;
  bytes: number;
  problem?: string;
}

const skill = (name: string, description: string, body = '# Steps\n\n1. Do it.\n') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/**
 * GET/PUT /v1/agents/:id/skills/:name: an agent's skills read and edited with the workspace files'
 * checks (names, links, size), front matter the catalog accepts, and the version that was read; the
 * next turn's prompt lists what was saved.
 */
describe('agent skills through the API', () => {
  let h: Harness;
  const path = (name: string, agent = 'default') => `/v1/agents/${agent}/skills/${name}`;
  const get = async (name: string) => (await (await h.api(path(name))).json()) as SkillView;
  const put = (name: string, json: Record<string, unknown>, agent = 'default') => h.api(path(name, agent), { method: 'PUT', json });
  const lastSystem = () => {
    const m = h.llm.requests[h.llm.requests.length - 1].body.messages;
    return m[0].role === 'system' ? (m[0].content ?? '') : '';
  };
  const workspace = () => join(h.home, 'workspaces', 'agents', 'default');

  beforeAll(async () => {
    h = await startHarness({ config: { agents: { default: {}, other: {} } } });
  });
  afterAll(() => h.stop());

  it('creates a skill in the workspace and the next turn lists it; an edit is listed on the turn after', async () => {
    const created = await put('trip-plan', { content: skill('trip-plan', 'Plan a trip: flights, hotels') });
    expect(created.status).toBe(200);
    const view = (await created.json()) as SkillView;
    expect(view).toMatchObject({ name: 'trip-plan', source: 'workspace', editable: true });
    expect(view.problem).toBeUndefined();
    expect(readFileSync(join(workspace(), 'skills', 'trip-plan', 'SKILL.md'), 'utf8')).toContain('Plan a trip');
    expect((await h.api('/v1/chat', { json: { message: 'hi' } })).status).toBe(200);
    expect(lastSystem()).toContain('- trip-plan: Plan a trip: flights, hotels');

    // Within the same second as the first write: the catalog is told, not left to compare stamps.
    const edited = await put('trip-plan', { content: skill('trip-plan', '规划行程：机票和酒店'), version: view.version });
    expect(edited.status).toBe(200);
    expect((await h.api('/v1/chat', { json: { message: 'again' } })).status).toBe(200);
    expect(lastSystem()).toContain('- trip-plan: 规划行程：机票和酒店');
    expect(lastSystem()).not.toContain('flights, hotels');
    const listed = (await (await h.api('/v1/agents')).json()) as { agents: { id: string; skills: { name: string; source: string }[] }[] };
    expect(listed.agents.find((a) => a.id === 'default')!.skills).toContainEqual(
      expect.objectContaining({ name: 'trip-plan', source: 'workspace' }),
    );
    expect(listed.agents.find((a) => a.id === 'other')!.skills.map((s) => s.name)).not.toContain('trip-plan');
  });

  it('refuses a save from a stale version, and a create over an existing skill, with 409', async () => {
    const first = await get('trip-plan');
    const stale = await put('trip-plan', { content: skill('trip-plan', 'Stale edit'), version: 'AAAAAAAAAAAAAAAA' });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as ErrorBody).error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('changed since it was read'),
    });
    const again = await put('trip-plan', { content: skill('trip-plan', 'Second create') });
    expect(again.status).toBe(409);
    expect(await get('trip-plan')).toMatchObject({ version: first.version, content: first.content });
  });

  it('refuses front matter the catalog would skip with a 400 that says what to fix', async () => {
    for (const [content, says] of [
      ['# no front matter', 'no YAML front matter'],
      ['---\nname: bad-fm\n---\nbody', 'description'],
      ['---\nname: other-name\ndescription: x\n---\n', 'name: bad-fm'],
      ['---\nname: "../x"\ndescription: x\n---\n', 'name'],
    ]) {
      const res = await put('bad-fm', { content });
      expect({ content, status: res.status }).toEqual({ content, status: 400 });
      expect(((await res.json()) as ErrorBody).error.message).toContain(says);
    }
    expect((await h.api(path('bad-fm'))).status).toBe(404);
  });

  it('refuses names that are not a skill name, a body over 64 KiB and unknown agents', async () => {
    for (const name of ['..%2F..%2Fconfig.yaml', '..%2F', '.hidden', '%2Fetc%2Fpasswd', 'a%00b', 'x'.repeat(65)]) {
      const read = await h.api(path(name));
      const write = await put(name, { content: skill('x', 'y') });
      expect({ name, read: read.status, write: write.status }).toEqual({ name, read: 400, write: 400 });
    }
    const big = await put('big', { content: skill('big', 'Too big', 'x'.repeat(64 * 1024)) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as ErrorBody).error.code).toBe('payload_too_large');
    expect((await put('trip-plan', { content: skill('trip-plan', 'x') }, 'nobody')).status).toBe(404);
    expect((await put('trip-plan', { content: skill('trip-plan', 'x') }, '__proto__')).status).toBe(404);
    expect((await put('x', { content: 'x', extra: 1 })).status).toBe(400);
  });

  it('never writes or reads through a link out of the workspace', async () => {
    const outside = join(h.home, 'outside-skills');
    mkdirSync(join(outside, 'escape'), { recursive: true });
    writeFileSync(join(outside, 'escape', 'SKILL.md'), skill('escape', 'secret: sk-test-outside'));
    symlinkSync(join(outside, 'escape'), join(workspace(), 'skills', 'escape'));
    const write = await put('escape', { content: skill('escape', 'overwrite it'), version: 'whatever' });
    expect(write.status).toBe(409);
    expect(readFileSync(join(outside, 'escape', 'SKILL.md'), 'utf8')).toContain('sk-test-outside');
    const read = await h.api(path('escape'));
    expect(read.status).toBe(409);
    expect(await read.text()).not.toContain('sk-test-outside');
    mkdirSync(join(outside, 'empty'));
    symlinkSync(join(outside, 'empty'), join(workspace(), 'skills', 'escape-dir'));
    expect((await put('escape-dir', { content: skill('escape-dir', 'through a folder link') })).status).toBe(409);
    expect(existsSync(join(outside, 'empty', 'SKILL.md'))).toBe(false);
    mkdirSync(join(workspace(), 'skills', 'linked'));
    symlinkSync(join(h.home, 'config.yaml'), join(workspace(), 'skills', 'linked', 'SKILL.md'));
    const viaFileLink = await put('linked', { content: skill('linked', 'overwrite the config') });
    expect(viaFileLink.status).toBe(409);
    expect(readFileSync(join(h.home, 'config.yaml'), 'utf8')).not.toContain('overwrite the config');
  });

  it('shows built-in and shared skills read-only; a workspace skill of the same name replaces it for that agent only', async () => {
    mkdirSync(join(h.home, 'skills', 'shared-one'), { recursive: true });
    writeFileSync(join(h.home, 'skills', 'shared-one', 'SKILL.md'), skill('shared-one', 'A shared skill'));
    expect(await get('shared-one')).toMatchObject({
      source: 'global',
      editable: false,
      content: expect.stringContaining('A shared skill'),
    });
    const builtin = await get('web-research');
    expect(builtin).toMatchObject({ source: 'builtin', editable: false });
    const own = await put('web-research', { content: skill('web-research', 'Search only Chinese sources') });
    expect(own.status).toBe(200);
    expect(await get('web-research')).toMatchObject({ source: 'workspace', editable: true });
    const other = (await (await h.api(path('web-research', 'other'))).json()) as SkillView;
    expect(other).toMatchObject({ source: 'builtin', content: builtin.content });
  });

  it('answers 401 without a token and 403 to a token without the admin scope', async () => {
    expect((await fetch(`${h.gateway.url}${path('trip-plan')}`)).status).toBe(401);
    const { code } = (await (await h.api('/v1/pair/codes', { json: { scopes: ['chat'] } })).json()) as { code: string };
    const paired = await fetch(`${h.gateway.url}/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: 'skills-phone' }),
    });
    const { token } = (await paired.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await fetch(`${h.gateway.url}${path('trip-plan')}`, { headers })).status).toBe(403);
    const write = await fetch(`${h.gateway.url}${path('trip-plan')}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ content: skill('trip-plan', 'from a phone') }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as ErrorBody).error.code).toBe('forbidden');
  });

  it('audits each save as skill.write', async () => {
    const audit = (await (await h.api('/v1/audit?action=skill.write')).json()) as { entries: { target: string; outcome: string }[] };
    expect(audit.entries.map((e) => `${e.target} ${e.outcome}`).sort()).toEqual([
      'default/skills/trip-plan/SKILL.md created',
      'default/skills/trip-plan/SKILL.md replaced',
      'default/skills/web-research/SKILL.md created',
    ]);
  });
});
