import type { Tool, ToolSource } from '@nestclaw/tool';

/**
 * Every loaded plugin's tools, for the tool registry. A plugin that stops (disabled, or an untrusted
 * one whose process is down) keeps or loses its tools here; the registry asks on every turn.
 * `<plugin>.*` in an agent's `tools` selects all of one plugin's tools.
 */
export class PluginToolSource implements ToolSource {
  private readonly byPlugin = new Map<string, readonly Tool[]>();
  private current: readonly Tool[] = [];

  tools(): readonly Tool[] {
    return this.current;
  }

  select(entry: string): string[] {
    const m = /^([a-z][a-z0-9-]*)\.\*$/.exec(entry);
    return m ? (this.byPlugin.get(m[1]) ?? []).map((t) => t.name) : [];
  }

  set(plugin: string, tools: readonly Tool[]): void {
    if (tools.length) this.byPlugin.set(plugin, tools);
    else this.byPlugin.delete(plugin);
    this.current = [...this.byPlugin.values()].flat();
  }

  /** A tool name another plugin already offers (the first plugin keeps it). */
  owner(tool: string): string | undefined {
    for (const [plugin, tools] of this.byPlugin) if (tools.some((t) => t.name === tool)) return plugin;
    return undefined;
  }
}
