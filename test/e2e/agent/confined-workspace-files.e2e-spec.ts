import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BootstrapFiles, describePrompt, SystemPromptBuilder } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import { eventually } from '../../support/eventually';
import { Harness, startHarness } from '../../support/gateway-harness';

/**
 * Issue 22: the gateway reads workspace files as its own user, so a symlink the sandbox made (an
 * approved `ln -s`, simulated here by the test) must not carry a file it cannot read itself into the
 * prompt, the owner's memory or a skill. Each file is refused and skipped; the turn still answers.
 */
describe('workspace files are read only from inside the workspace', () => {
  const SECRET = 'sk-live-CONFIG-SECRET-7f3a9';
  const SHADOW = 'root:$6$SHADOW-HASH-91xq:19000:0:99999:7:::';
  let h: Harness;
  let outside: string;
  const agentDir = () => join(h.home, 'workspaces', 'agents', 'default');
  const lastRequest = () => JSON.stringify(h.llm.requests[h.llm.requests.length - 1].body);
  const chat = async (message: string) => {
    const res = await h.api('/v1/chat', { json: { message } });
    return { status: res.status, ...((await res.json()) as { reply: string }) };
  };

  beforeAll(async () => {
    outside = mkdtempSync(join(tmpdir(), 'nestclaw-outside-'));
    writeFileSync(join(outside, 'shadow'), `${SHADOW}\n`);
    writeFileSync(
      join(outside, 'SKILL.md'),
      `---\nname: leaked-skill\ndescription: a skill living outside the workspace\n---\n# Leaked\n${SHADOW}\n`,
    );
    h = await startHarness({
      model: { api_key: SECRET },
      config: { memory: { files: { scan_interval: 200 } }, providers: { idempotency_ttl: 0 } },
    });
    await chat('first turn'); // writes the bootstrap templates
  });
  afterAll(async () => {
    await h.stop();
    rmSync(outside, { recursive: true, force: true });
  });

  it('leaves a SOUL.md linked to config.yaml out of the prompt and notes why in the prompt report', async () => {
    rmSync(join(agentDir(), 'SOUL.md'));
    symlinkSync(join(h.home, 'config.yaml'), join(agentDir(), 'SOUL.md'));
    const res = await chat('who are you?');
    expect(res.status).toBe(200);
    expect(res.reply).toBe('echo: who are you?');
    expect(lastRequest()).not.toContain(SECRET);
    expect(lastRequest()).not.toContain('## SOUL.md');
    expect(lastRequest()).toContain('## AGENTS.md');

    const app = h.gateway.app;
    const agent = app.get(ConfigService).get().agents.default;
    const report = await describePrompt(
      { prompts: app.get(SystemPromptBuilder), bootstrap: app.get(BootstrapFiles), tools: [] },
      'default',
      agent,
    );
    expect(report.files.find((f) => f.name === 'SOUL.md')).toMatchObject({
      includedChars: 0,
      refused: expect.stringContaining('symlink leading outside'),
    });
  });

  it('never makes a memory/*.md linked outside the workspace a memory, nor returns it from memory_recall', async () => {
    mkdirSync(join(agentDir(), 'memory'), { recursive: true });
    symlinkSync(join(outside, 'shadow'), join(agentDir(), 'memory', 'notes.md'));
    writeFileSync(join(agentDir(), 'memory', 'plain.md'), 'The plants on the balcony need water on Sundays.\n');
    // The scan that took plain.md also saw notes.md (one pass lists the folder).
    await eventually('plain.md to become a memory', async () =>
      (await h.query(`SELECT 1 FROM memories WHERE source_key = 'file:default:memory/plain.md'`)).length > 0 ? true : undefined,
    );
    const rows = await h.query<{ content: string; source_key: string }>(`SELECT content, source_key FROM memories`);
    expect(rows.map((r) => r.source_key)).not.toContain('file:default:memory/notes.md');
    expect(JSON.stringify(rows)).not.toContain('SHADOW-HASH');
    const res = await chat('[tool:memory_recall {"query":"root password hash shadow"}]');
    expect(res.status).toBe(200);
    expect(lastRequest()).not.toContain('SHADOW-HASH');
  });

  it('skips a skill whose SKILL.md links outside the workspace', async () => {
    mkdirSync(join(agentDir(), 'skills', 'leaked-skill'), { recursive: true });
    symlinkSync(join(outside, 'SKILL.md'), join(agentDir(), 'skills', 'leaked-skill', 'SKILL.md'));
    const res = await chat('[tool:skill_read {"name":"leaked-skill"}]');
    expect(res.status).toBe(200);
    expect(res.reply).toContain('no skill named');
    expect(lastRequest()).not.toContain('SHADOW-HASH');
    expect(lastRequest()).not.toContain('a skill living outside the workspace');
  });
});
