import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { z } from 'zod';
import { ConfigService } from '@nestclaw/config';
import { ExecutorSelector } from './executor/executor.selector';
import { CurrentTimeTool } from './tools/current-time.tool';
import { FileListTool } from './tools/file-list.tool';
import { FileReadTool } from './tools/file-read.tool';
import { FileWriteTool } from './tools/file-write.tool';
import { HttpRequestTool } from './tools/http-request.tool';
import { ShellTool } from './tools/shell.tool';
import { WebSearchTool } from './tools/web-search.tool';
import { Tool, ToolSchema, ToolSource } from './tool.port';

/** Results longer than this are cut with a note, so one tool cannot flood the context. */
export const MAX_TOOL_OUTPUT_CHARS = 16_000;

/** Every tool by name, with the JSON Schema definitions the model sees. */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private readonly tools = new Map<string, Tool>();
  private readonly definitions = new Map<string, ToolSchema>();
  private readonly sources: ToolSource[] = [];
  /** Definitions of source tools, computed once per tool object (a refreshed list brings new objects). */
  private readonly sourceDefinitions = new WeakMap<Tool, ToolSchema>();

  constructor(
    @Optional() config?: ConfigService,
    @Optional() private readonly selector?: ExecutorSelector,
  ) {
    this.register(new CurrentTimeTool());
    if (config) {
      const tools = () => config.get().tools;
      this.register(new ShellTool(tools));
      this.register(new FileReadTool(tools));
      this.register(new FileWriteTool(tools));
      this.register(new FileListTool(tools));
      this.register(new HttpRequestTool(tools));
      this.register(new WebSearchTool(tools));
    }
  }

  /** Probes the sandboxes before the first turn, so `definitionsFor` knows whether commands can run. */
  async onModuleInit(): Promise<void> {
    await this.selector?.select();
  }

  /** Adds or replaces a tool (plugins and tests). */
  register(tool: Tool): void {
    this.tools.set(tool.name, tool);
    this.definitions.set(tool.name, definitionOf(tool));
  }

  /** Adds tools that live elsewhere and may change (MCP servers); a registered tool of the same name wins. */
  addSource(source: ToolSource): void {
    this.sources.push(source);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name) ?? this.fromSources(name);
  }

  /**
   * Whether a call, as the model wrote it, may change anything (`Tool.sideEffects`). An unknown or
   * unmarked tool, or arguments its schema does not accept, count as yes.
   */
  mayHaveSideEffects(name: string, rawArguments: string): boolean {
    const tool = this.tools.get(name);
    if (!tool?.sideEffects) return true;
    let args: unknown;
    try {
      args = rawArguments.trim() ? JSON.parse(rawArguments) : {};
    } catch {
      return true;
    }
    const parsed = tool.input.safeParse(args);
    return !parsed.success || tool.sideEffects(parsed.data);
  }

  names(): string[] {
    return [...this.tools.keys(), ...this.sources.flatMap((s) => s.tools().map((t) => t.name))];
  }

  /**
   * The tool names an agent's `tools` list selects, in its order: each entry's exact name, or what a
   * source expands it to (`github.*`). The invoker runs only these; the model is offered only these.
   */
  selected(entries: readonly string[]): string[] {
    const out = new Set<string>();
    for (const entry of entries) {
      if (this.tools.has(entry) || this.fromSources(entry)) out.add(entry);
      for (const source of this.sources) for (const name of source.select?.(entry) ?? []) out.add(name);
    }
    return [...out];
  }

  /**
   * Definitions for the enabled tools that exist, in the order given. Tools that run commands are
   * left out when no sandbox can run them: the model is never offered a shell it cannot have.
   */
  definitionsFor(names: readonly string[]): ToolSchema[] {
    const noCommands = this.selector?.commandsAvailable() === false;
    return this.selected(names)
      .filter((n) => !(noCommands && this.get(n)?.runsCommands))
      .map((n) => this.definitions.get(n) ?? this.sourceDefinition(n))
      .filter((d): d is ToolSchema => !!d);
  }

  private fromSources(name: string): Tool | undefined {
    for (const source of this.sources) {
      const tool = source.tools().find((t) => t.name === name);
      if (tool) return tool;
    }
    return undefined;
  }

  private sourceDefinition(name: string): ToolSchema | undefined {
    const tool = this.fromSources(name);
    if (!tool) return undefined;
    let d = this.sourceDefinitions.get(tool);
    if (!d) this.sourceDefinitions.set(tool, (d = definitionOf(tool)));
    return d;
  }
}

/** What the model is told about a tool: its own JSON Schema when it brings one, else the one derived from its zod input. */
function definitionOf(tool: Tool): ToolSchema {
  if (tool.parameters) return { name: tool.name, description: tool.description, parameters: tool.parameters };
  const schema = z.toJSONSchema(tool.input, { target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  // additionalProperties:false costs tokens on every call and the input is validated anyway.
  delete schema.additionalProperties;
  return { name: tool.name, description: tool.description, parameters: schema };
}

export function capOutput(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters]`;
}
