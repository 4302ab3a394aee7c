import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countChatTokens, countTokens } from '@nestclaw/common';
import { Harness, startHarness } from '../../support/gateway-harness';

/** The prompt the fake model received for the last request. */
const lastSystem = (h: Harness) => {
  const m = h.llm.requests[h.llm.requests.length - 1].body.messages;
  return m[0].role === 'system' ? (m[0].content ?? '') : '';
};
const agentDir = (h: Harness, agent = 'default') => join(h.home, 'workspaces', 'agents', agent);

async function chat(h: Harness, message: string, extra: Record<string, unknown> = {}) {
  const res = await h.api('/v1/chat', { json: { message, ...extra } });
  const body = (await res.json()) as { reply: string; sessionId: string; usage: { inputTokens: number; costUsd: number } };
  return { status: res.status, ...body };
}

describe('layered system prompt with workspace bootstrap files', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      config: {
        agents: {
          default: {},
          tight: { bootstrap: { max_file_chars: 1000, max_total_chars: 1600 } },
          lean: { prompt_mode: 'minimal' },
          bare: { prompt_mode: 'none' },
          greeter: { classifier: { enabled: true, replies: { greeting_zh: ['你好呀，我在。'], thanks: ['Any time!'] } } },
        },
      },
    });
  });
  afterAll(() => h.stop());

  it('creates the bootstrap files from templates and sends them in order, after the identity and before the context', async () => {
    await chat(h, 'hello');
    const system = lastSystem(h);
    const order = [
      'You are nestclaw',
      '## AGENTS.md',
      '## SOUL.md',
      '## USER.md',
      '## IDENTITY.md',
      '## TOOLS.md',
      '## Context',
      '## Skills',
    ];
    const positions = order.map((s) => system.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(system).toContain('Channel: http');
  });

  it('keeps the prompt for "hello" with the default files and tools within 2,000 tokens', async () => {
    await chat(h, 'hello');
    const body = h.llm.requests[h.llm.requests.length - 1].body;
    const tokens = countChatTokens(
      body.messages.map((m) => ({ content: m.content })),
      body.tools,
    );
    expect(body.tools?.length).toBeGreaterThanOrEqual(7);
    expect(tokens).toBeLessThanOrEqual(2000);
  });

  it('cuts an over-long file keeping its head and tail with a marker, and keeps the total within budget', async () => {
    const dir = agentDir(h, 'tight');
    await chat(h, 'first', { agentId: 'tight' }); // creates the templates
    writeFileSync(join(dir, 'SOUL.md'), `SOUL-HEAD ${'middle '.repeat(2000)} SOUL-TAIL`);
    writeFileSync(join(dir, 'USER.md'), `USER-HEAD ${'u'.repeat(3000)} USER-TAIL`);
    await chat(h, 'again', { agentId: 'tight' });
    const system = lastSystem(h);
    const soul = system.slice(system.indexOf('## SOUL.md'), system.indexOf('## USER.md'));
    expect(soul).toContain('SOUL-HEAD');
    expect(soul).toContain('SOUL-TAIL');
    expect(soul).toMatch(/\[… \d+ characters of SOUL\.md cut to fit the prompt budget/);
    expect(soul.length).toBeLessThan(1000 + 200);
    // The total budget (1,600) leaves USER.md only what SOUL.md and AGENTS.md did not use.
    const files = ['AGENTS.md', 'SOUL.md', 'USER.md', 'IDENTITY.md', 'TOOLS.md'];
    const bootstrapText = system.slice(system.indexOf('## AGENTS.md'), system.indexOf('## Context'));
    const bodyChars = bootstrapText.length - files.reduce((n, f) => n + `## ${f}\n`.length + 2, 0);
    expect(bodyChars).toBeLessThanOrEqual(1600 + 5 * 120);
    expect(system).not.toContain('USER-TAIL'.repeat(2));
  });

  it('uses an edited SOUL.md on the next turn without a restart', async () => {
    await chat(h, 'before');
    expect(lastSystem(h)).not.toContain('Always answer like a pirate');
    writeFileSync(join(agentDir(h), 'SOUL.md'), '# Personality\nAlways answer like a pirate.\n');
    await chat(h, 'after');
    expect(lastSystem(h)).toContain('Always answer like a pirate');
  });

  it('minimal mode sends identity and context but no bootstrap files or skills; none sends no system prompt', async () => {
    await chat(h, 'hi', { agentId: 'lean' });
    const system = lastSystem(h);
    expect(system).toContain('You are nestclaw');
    expect(system).toContain('## Context');
    expect(system).not.toContain('## SOUL.md');
    expect(system).not.toContain('## Skills');
    await chat(h, 'hi', { agentId: 'bare' });
    expect(h.llm.requests[h.llm.requests.length - 1].body.messages.map((m) => m.role)).toEqual(['user']);
  });

  describe('skills', () => {
    const writeSkill = (root: string, name: string, description: string, extra = '') => {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(
        join(root, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\nSteps for ${name}.\n`,
      );
    };

    it('lists only names and descriptions, a workspace skill overrides a global one, a missing binary makes a skill unavailable', async () => {
      writeSkill(join(h.home, 'skills'), 'travel-plan', 'GLOBAL version of travel planning');
      writeSkill(join(agentDir(h), 'skills'), 'travel-plan', 'Plan a trip: flights, hotels, day-by-day itinerary');
      writeSkill(join(h.home, 'skills'), 'video-cut', 'Cut and join video clips', 'requires:\n  bins: [definitely-not-installed-xyz]\n');
      await chat(h, 'plan my trip');
      const skills = lastSystem(h).split('## Skills\n')[1];
      expect(skills).toContain('- travel-plan: Plan a trip: flights, hotels, day-by-day itinerary');
      expect(skills).not.toContain('GLOBAL version');
      expect(skills).toContain('- video-cut: Cut and join video clips (unavailable: missing binary definitely-not-installed-xyz)');
      expect(skills).toContain('- web-research:');
      expect(skills).toContain('- user-profile:');
      expect(skills).not.toContain('Steps for travel-plan');
    });

    it('gives the full SKILL.md through the skill_read tool', async () => {
      const res = await chat(h, 'read it [tool:skill_read {"name":"travel-plan"}]');
      expect(res.reply).toContain('tool said:');
      expect(res.reply).toContain('Steps for travel-plan.');
    });

    it('picks up a new skill on the next turn and keeps 20 installed skills within 400 prompt tokens', async () => {
      const root = join(h.home, 'skills');
      const descriptions = [
        'Summarise a long email thread into decisions and action items',
        'Draft a polite reply to a customer complaint',
        'Convert a recipe between metric and imperial units',
        '把会议记录整理成纪要和待办事项',
        'Review a pull request diff for bugs and style issues',
        'Plan a weekly workout routine from goals and equipment',
        'Explain a stack trace and suggest the likely fix',
        'Create a study plan with spaced repetition for an exam',
        '翻译并润色中英文商务邮件',
        'Track expenses from receipts into a monthly CSV',
        'Write a release note from a list of merged changes',
        'Find free slots in a calendar export and propose meetings',
        'Check a contract for unusual clauses and deadlines',
        'Generate SQL for a question about a described schema',
        'Outline a blog post from a topic and audience',
        'Compare two products from their spec sheets',
        'Turn a voice memo transcript into a to-do list',
      ];
      descriptions.forEach((d, i) => writeSkill(root, `skill-${String(i).padStart(2, '0')}`, d));
      await chat(h, 'what can you do');
      const skills = lastSystem(h).split('## Skills\n')[1];
      expect(skills).toContain('- skill-16: Turn a voice memo transcript into a to-do list');
      const count = (skills.match(/^- /gm) ?? []).length;
      // 17 new + travel-plan, video-cut + 2 built-in = 21 installed skills.
      expect(count).toBe(21);
      expect(countTokens(`## Skills\n${skills}`)).toBeLessThanOrEqual(400);
    });
  });

  describe('trivial-message classifier', () => {
    it('answers "你好" and "thanks!" from templates without a model call, recorded as a zero-cost turn', async () => {
      const before = h.llm.requests.length;
      const hi = await chat(h, '你好', { agentId: 'greeter' });
      expect(hi.reply).toBe('你好呀，我在。');
      expect(hi.usage).toMatchObject({ inputTokens: 0, costUsd: 0 });
      const thanks = await chat(h, 'thanks!', { agentId: 'greeter', sessionId: hi.sessionId });
      expect(thanks.reply).toBe('Any time!');
      expect(h.llm.requests.length).toBe(before);
      const { messages } = (await (await h.api(`/v1/sessions/${hi.sessionId}/messages`)).json()) as {
        messages: { role: string; content: string; status: string }[];
      };
      expect(messages.map((m) => [m.role, m.content, m.status])).toEqual([
        ['user', '你好', 'ok'],
        ['assistant', '你好呀，我在。', 'ok'],
        ['user', 'thanks!', 'ok'],
        ['assistant', 'Any time!', 'ok'],
      ]);
    });

    it('sends a greeting with a request to the model', async () => {
      const before = h.llm.requests.length;
      const res = await chat(h, '你好，帮我查一下明天的天气', { agentId: 'greeter' });
      expect(h.llm.requests.length).toBe(before + 1);
      expect(res.reply).toBe('echo: 你好，帮我查一下明天的天气');
    });

    it('is off unless the agent opts in', async () => {
      const before = h.llm.requests.length;
      await chat(h, '你好');
      expect(h.llm.requests.length).toBe(before + 1);
    });
  });
});
