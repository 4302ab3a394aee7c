import { HookRegistry } from '@nestclaw/tool';
import { Harness, startHarness } from '../../support/gateway-harness';

describe('hooks fired from the agent loop (real gateway)', () => {
  let h: Harness;
  let hooks: HookRegistry;
  const seen: string[] = [];
  beforeAll(async () => {
    h = await startHarness({
      config: {
        tools: {
          hooks: {
            block: [{ tool: 'file_read', pattern: 'private', reason: 'private files are off limits' }],
            redact: [{ pattern: 'sk-[a-z0-9]+' }],
          },
        },
      },
    });
    hooks = h.gateway.app.get(HookRegistry);
    hooks.on('SessionStart', ({ sessionId }) => void seen.push(`start:${sessionId}`));
    hooks.on('UserPromptSubmit', ({ prompt }) =>
      prompt.includes('forbidden') ? { block: 'not here' } : { prompt: prompt.replace('PLACEHOLDER', 'rewritten') },
    );
    hooks.on('PreToolUse', ({ tool, input }) =>
      tool === 'current_time' ? { input: { ...(input as object), timezone: 'Asia/Tokyo' } } : undefined,
    );
    hooks.on('PostToolUse', ({ tool, output }) => (tool === 'current_time' ? { output: `${output} (checked)` } : undefined));
  });
  afterAll(() => h.stop());

  const reply = async (message: string) =>
    (await (await h.api('/v1/chat', { json: { message } })).json()) as {
      reply: string;
      sessionId: string;
      error?: { code: string; message: string };
    };

  it('fires SessionStart once for a new session and rewrites the prompt', async () => {
    const first = await reply('say PLACEHOLDER');
    expect(first.reply).toBe('echo: say rewritten');
    await h.api('/v1/chat', { json: { message: 'again', sessionId: first.sessionId } });
    expect(seen.filter((s) => s === `start:${first.sessionId}`)).toHaveLength(1);
  });

  it('blocks a prompt with UserPromptSubmit', async () => {
    const res = await h.api('/v1/chat', { json: { message: 'something forbidden' } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('not here');
  });

  it('rewrites tool input with PreToolUse and output with PostToolUse', async () => {
    const r = await reply('time [tool:current_time {"timezone":"UTC"}]');
    expect(r.reply).toContain('"timezone":"Asia/Tokyo"');
    expect(r.reply).toContain('(checked)');
  });

  it('applies config block rules per tool', async () => {
    const r = await reply('read [tool:file_read {"path":"private/notes.txt"}]');
    expect(r.reply).toBe('tool said: error: private files are off limits');
  });

  it('redacts tool output with config rules', async () => {
    const r = await reply('list [tool:file_list {"path":"sk-abc123"}]');
    expect(r.reply).toContain('[redacted]');
    expect(r.reply).not.toContain('sk-abc123');
  });
});
