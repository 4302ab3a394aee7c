import { z } from 'zod';
import { configSchema } from '@nestclaw/config';
import { ToolRegistry } from './tool.registry';
import type { Tool, ToolSource } from './tool.port';

const tool = (name: string, parameters?: Record<string, unknown>): Tool => ({
  name,
  description: `the ${name} tool`,
  input: z.object({ q: z.string() }),
  ...(parameters ? { parameters } : {}),
  execute: () => Promise.resolve(name),
});

/** A source whose list the test changes, expanding `ext.*` to all its tools. */
class ChangingSource implements ToolSource {
  list: Tool[] = [];
  tools() {
    return this.list;
  }
  select(entry: string) {
    return entry === 'ext.*' ? this.list.map((t) => t.name) : [];
  }
}

describe('ToolRegistry with an external tool source', () => {
  const config = configSchema.parse({});
  const registry = new ToolRegistry({ get: () => config } as never);
  const source = new ChangingSource();
  registry.addSource(source);

  it('finds, lists and offers a source tool once the source has it', () => {
    expect(registry.get('ext__a')).toBeUndefined();
    source.list = [tool('ext__a')];
    expect(registry.get('ext__a')?.name).toBe('ext__a');
    expect(registry.names()).toContain('ext__a');
    expect(registry.definitionsFor(['current_time', 'ext__a']).map((d) => d.name)).toEqual(['current_time', 'ext__a']);
  });

  it('expands an entry through the source, so tools added later are selected too', () => {
    source.list = [tool('ext__a'), tool('ext__b')];
    expect(registry.selected(['current_time', 'ext.*'])).toEqual(['current_time', 'ext__a', 'ext__b']);
    expect(registry.selected(['current_time'])).toEqual(['current_time']);
  });

  it("shows the model a source tool's own JSON Schema when it brings one", () => {
    const parameters = { type: 'object', properties: { path: { type: 'string' } } };
    source.list = [tool('ext__c', parameters)];
    expect(registry.definitionsFor(['ext__c'])).toEqual([{ name: 'ext__c', description: 'the ext__c tool', parameters }]);
  });

  it('forgets a tool the source no longer has', () => {
    source.list = [];
    expect(registry.get('ext__a')).toBeUndefined();
    expect(registry.definitionsFor(['ext__a', 'ext.*'])).toEqual([]);
  });

  it('lets a registered tool win over a source tool of the same name', () => {
    source.list = [tool('current_time')];
    expect(registry.get('current_time')?.description).not.toBe('the current_time tool');
  });
});
