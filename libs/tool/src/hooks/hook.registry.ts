import { Injectable, Logger } from '@nestjs/common';
import type {
  HookMap,
  HookName,
  PostToolUseEvent,
  PreCompactEvent,
  SubagentStopEvent,
  PreToolUseEvent,
  SessionEvent,
  UserPromptSubmitDecision,
  UserPromptSubmitEvent,
} from './hook.types';

/**
 * In-process hooks. Handlers run in registration order; the first `block` wins, rewrites chain.
 * A throwing handler is logged and skipped for observers, but blocks for PreToolUse (fail closed).
 */
@Injectable()
export class HookRegistry {
  private readonly logger = new Logger('Hooks');
  private readonly handlers: { [K in HookName]: HookMap[K][] } = {
    PreToolUse: [],
    PostToolUse: [],
    UserPromptSubmit: [],
    SessionStart: [],
    SessionEnd: [],
    PreCompact: [],
    SubagentStop: [],
  };

  /** Registers a handler; returns a function that removes it. */
  on<K extends HookName>(name: K, handler: HookMap[K]): () => void {
    const list = this.handlers[name] as HookMap[K][];
    list.push(handler);
    return () => {
      const i = list.indexOf(handler);
      if (i >= 0) list.splice(i, 1);
    };
  }

  async preToolUse(e: PreToolUseEvent): Promise<{ block?: string; input: unknown }> {
    let input = e.input;
    for (const h of this.handlers.PreToolUse) {
      try {
        const d = await h({ ...e, input });
        if (d && 'block' in d) return { block: d.block, input };
        if (d && 'input' in d) input = d.input;
      } catch (err) {
        return { block: `a PreToolUse hook failed: ${(err as Error).message}`, input };
      }
    }
    return { input };
  }

  async postToolUse(e: PostToolUseEvent): Promise<string> {
    let output = e.output;
    for (const h of this.handlers.PostToolUse) {
      try {
        const d = await h({ ...e, output });
        if (d) output = d.output;
      } catch (err) {
        this.logger.error(`PostToolUse hook failed: ${(err as Error).message}`);
      }
    }
    return output;
  }

  async userPromptSubmit(e: UserPromptSubmitEvent): Promise<{ block?: string; prompt: string }> {
    let prompt = e.prompt;
    for (const h of this.handlers.UserPromptSubmit) {
      const d: UserPromptSubmitDecision = await h({ ...e, prompt });
      if (d && 'block' in d) return { block: d.block, prompt };
      if (d && 'prompt' in d) prompt = d.prompt;
    }
    return { prompt };
  }

  async sessionStart(e: SessionEvent): Promise<void> {
    await this.observe('SessionStart', e);
  }

  async sessionEnd(e: SessionEvent): Promise<void> {
    await this.observe('SessionEnd', e);
  }

  async preCompact(e: PreCompactEvent): Promise<void> {
    await this.observe('PreCompact', e);
  }

  async subagentStop(e: SubagentStopEvent): Promise<void> {
    await this.observe('SubagentStop', e);
  }

  private async observe<K extends 'SessionStart' | 'SessionEnd' | 'PreCompact' | 'SubagentStop'>(
    name: K,
    e: Parameters<HookMap[K]>[0],
  ): Promise<void> {
    for (const h of this.handlers[name] as ((e: Parameters<HookMap[K]>[0]) => void | Promise<void>)[]) {
      try {
        await h(e);
      } catch (err) {
        this.logger.error(`${name} hook failed: ${(err as Error).message}`);
      }
    }
  }
}
