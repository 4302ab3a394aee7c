import { configSchema } from '@nestclaw/config';
import { configBlock, configRedact } from './config-rules.hook';
import { HookRegistry } from './hook.registry';

const ctx = { sessionId: 's', turnId: 't', agentId: 'default' };

describe('HookRegistry', () => {
  it('lets a PreToolUse hook block a call', async () => {
    const hooks = new HookRegistry();
    hooks.on('PreToolUse', ({ tool }) => (tool === 'shell' ? { block: 'no shell today' } : undefined));
    expect(await hooks.preToolUse({ ctx, tool: 'shell', input: {} })).toMatchObject({ block: 'no shell today' });
    expect(await hooks.preToolUse({ ctx, tool: 'file_read', input: { path: 'a' } })).toEqual({ input: { path: 'a' } });
  });

  it('chains PreToolUse rewrites of the input', async () => {
    const hooks = new HookRegistry();
    hooks.on('PreToolUse', () => ({ input: { command: 'wc -l' } }));
    hooks.on('PreToolUse', ({ input }) => ({ input: { ...(input as object), timeout_ms: 5 } }));
    expect(await hooks.preToolUse({ ctx, tool: 'shell', input: { command: 'x' } })).toEqual({ input: { command: 'wc -l', timeout_ms: 5 } });
  });

  it('fails closed when a PreToolUse hook throws', async () => {
    const hooks = new HookRegistry();
    hooks.on('PreToolUse', () => {
      throw new Error('boom');
    });
    expect((await hooks.preToolUse({ ctx, tool: 'shell', input: {} })).block).toContain('boom');
  });

  it('lets PostToolUse redact output, and unsubscribes', async () => {
    const hooks = new HookRegistry();
    const off = hooks.on('PostToolUse', ({ output }) => ({ output: output.replace('sk-123', '[key]') }));
    expect(await hooks.postToolUse({ ctx, tool: 'shell', input: {}, output: 'key sk-123', isError: false })).toBe('key [key]');
    off();
    expect(await hooks.postToolUse({ ctx, tool: 'shell', input: {}, output: 'key sk-123', isError: false })).toBe('key sk-123');
  });

  it('fires UserPromptSubmit (block or rewrite) and session hooks', async () => {
    const hooks = new HookRegistry();
    const seen: string[] = [];
    hooks.on('UserPromptSubmit', ({ prompt }) => (prompt.includes('forbidden') ? { block: 'nope' } : { prompt: prompt.trim() }));
    hooks.on('SessionStart', ({ sessionId }) => void seen.push(`start ${sessionId}`));
    hooks.on('SessionEnd', ({ sessionId }) => void seen.push(`end ${sessionId}`));
    expect(await hooks.userPromptSubmit({ sessionId: 's', agentId: 'a', prompt: ' hi ' })).toEqual({ prompt: 'hi' });
    expect((await hooks.userPromptSubmit({ sessionId: 's', agentId: 'a', prompt: 'forbidden' })).block).toBe('nope');
    await hooks.sessionStart({ sessionId: 's', agentId: 'a' });
    await hooks.sessionEnd({ sessionId: 's', agentId: 'a' });
    expect(seen).toEqual(['start s', 'end s']);
  });
});

describe('config hook rules', () => {
  const rules = configSchema.parse({
    tools: {
      hooks: {
        block: [{ tool: 'http_request', pattern: 'evil\\.example', reason: 'blocked host' }],
        redact: [{ pattern: 'sk-[a-z0-9]+' }],
      },
    },
  }).tools.hooks;

  it('blocks a matching input for that tool only', () => {
    expect(configBlock(rules, 'http_request', { url: 'https://evil.example/x' })).toBe('blocked host');
    expect(configBlock(rules, 'web_search', { query: 'evil.example' })).toBeUndefined();
  });

  it('redacts matches in every tool output', () => {
    expect(configRedact(rules, 'shell', 'key=sk-abc123 and sk-zz')).toBe('key=[redacted] and [redacted]');
  });
});
