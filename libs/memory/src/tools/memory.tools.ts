import { z } from 'zod';
import { Tool, ToolError, ToolRuntime } from '@nestclaw/tool';
import type { MemoryStore, MemoryScope } from '../memory.port';

function scopeOf(ctx: ToolRuntime): MemoryScope {
  if (!ctx.personId) throw new ToolError('memory is not available in this conversation (the person could not be identified)');
  return { person: ctx.personId, agentId: ctx.agentId };
}

const storeInput = z.object({
  content: z.string().min(1).max(20_000).describe('The fact to remember, self-contained'),
  supersedes: z.string().optional().describe('Id of an older memory this one updates'),
});

export class MemoryStoreTool implements Tool<typeof storeInput> {
  readonly name = 'memory_store';
  readonly description = 'Remember a fact about the user for later conversations. To update a fact, pass the old memory id as supersedes.';
  readonly input = storeInput;

  constructor(private readonly memory: MemoryStore) {}

  async execute(ctx: ToolRuntime, i: z.output<typeof storeInput>): Promise<string> {
    const id = await this.memory.store(i.content, {
      scope: scopeOf(ctx),
      source: 'tool',
      supersedes: i.supersedes,
      metadata: { sessionId: ctx.sessionId },
    });
    return JSON.stringify({ id });
  }
}

const recallInput = z.object({
  query: z.string().min(1).max(2000),
  k: z.number().int().min(1).max(20).optional(),
});

export class MemoryRecallTool implements Tool<typeof recallInput> {
  readonly name = 'memory_recall';
  /** Only reads: a turn cut short after a recall is asked again after a crash (no notice). */
  readonly sideEffects = () => false;
  readonly description = 'Search long-term memory about the user (facts, files, earlier conversations).';
  readonly input = recallInput;

  constructor(private readonly memory: MemoryStore) {}

  async execute(ctx: ToolRuntime, i: z.output<typeof recallInput>): Promise<string> {
    const r = await this.memory.recall(i.query, { scope: scopeOf(ctx), topK: i.k ?? 5 });
    if (r.results.length === 0) return 'no memories found';
    return r.results.map((h) => `- [id ${h.id}, ${h.source}, ${h.createdAt.slice(0, 10)}] ${h.content}`).join('\n');
  }
}

const forgetInput = z.object({ id: z.string().min(1).describe('Memory id') });

export class MemoryForgetTool implements Tool<typeof forgetInput> {
  readonly name = 'memory_forget';
  readonly description = 'Forget one memory by id.';
  readonly input = forgetInput;

  constructor(private readonly memory: MemoryStore) {}

  async execute(ctx: ToolRuntime, i: z.output<typeof forgetInput>): Promise<string> {
    try {
      await this.memory.forget(i.id, scopeOf(ctx));
    } catch (e) {
      if (e instanceof ToolError) throw e;
      throw new ToolError(`no memory "${i.id}"`);
    }
    return `forgot ${i.id}`;
  }
}
