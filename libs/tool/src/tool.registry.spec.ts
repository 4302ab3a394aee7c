import { z } from 'zod';
import { configSchema } from '@nestclaw/config';
import { ToolRegistry } from './tool.registry';

describe('ToolRegistry.mayHaveSideEffects (what crash recovery may ask again)', () => {
  const config = configSchema.parse({});
  const registry = new ToolRegistry({ get: () => config } as never);

  it('counts the read-only tools as safe to run again', () => {
    expect(registry.mayHaveSideEffects('current_time', '{}')).toBe(false);
    expect(registry.mayHaveSideEffects('file_read', '{"path":"notes.md"}')).toBe(false);
    expect(registry.mayHaveSideEffects('file_list', '{"path":"."}')).toBe(false);
    expect(registry.mayHaveSideEffects('web_search', '{"query":"天气"}')).toBe(false);
  });

  it('counts shell and file writes as side effects, whatever their input', () => {
    expect(registry.mayHaveSideEffects('shell', '{"command":"wc -l notes.md"}')).toBe(true);
    expect(registry.mayHaveSideEffects('file_write', '{"path":"a.txt","content":"x"}')).toBe(true);
  });

  it('judges http_request by its method: GET and HEAD only read', () => {
    expect(registry.mayHaveSideEffects('http_request', '{"method":"GET","url":"https://example.com"}')).toBe(false);
    expect(registry.mayHaveSideEffects('http_request', '{"method":"HEAD","url":"https://example.com"}')).toBe(false);
    expect(registry.mayHaveSideEffects('http_request', '{"method":"POST","url":"https://example.com","body":"x"}')).toBe(true);
    expect(registry.mayHaveSideEffects('http_request', '{"method":"DELETE","url":"https://example.com"}')).toBe(true);
  });

  it('assumes side effects for an unknown or unmarked tool and for input its schema refuses', () => {
    registry.register({ name: 'plugin_tool', description: 'unmarked', input: z.object({}), execute: () => Promise.resolve('') });
    expect(registry.mayHaveSideEffects('plugin_tool', '{}')).toBe(true);
    expect(registry.mayHaveSideEffects('no_such_tool', '{}')).toBe(true);
    expect(registry.mayHaveSideEffects('http_request', '{"method":"GET"')).toBe(true);
    expect(registry.mayHaveSideEffects('http_request', '{"method":"TRACE","url":"https://example.com"}')).toBe(true);
  });
});
