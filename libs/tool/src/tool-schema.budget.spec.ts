import { encode } from 'gpt-tokenizer';
import { configSchema } from '@nestclaw/config';
import { ToolRegistry } from './tool.registry';

describe('default tool set', () => {
  it('costs at most 1,500 prompt tokens of tool schema', () => {
    const config = configSchema.parse({});
    const registry = new ToolRegistry({ get: () => config } as never);
    const defs = registry.definitionsFor(config.agents.default.tools);
    expect(defs.map((d) => d.name)).toEqual([
      'current_time',
      'shell',
      'file_read',
      'file_write',
      'file_list',
      'http_request',
      'web_search',
    ]);
    // What an OpenAI-compatible request carries for them.
    const wire = JSON.stringify(defs.map((d) => ({ type: 'function', function: d })));
    const tokens = encode(wire).length;
    process.stdout.write(`[nestclaw] default tool schema: ${tokens} tokens for ${defs.length} tools\n`);
    expect(tokens).toBeLessThanOrEqual(1500);
  });
});
