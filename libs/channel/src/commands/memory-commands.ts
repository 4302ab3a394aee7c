import { Injectable } from '@nestjs/common';
import { isNestclawError } from '@nestclaw/common';
import { MemoryStore, TurnMemory } from '@nestclaw/memory';
import type { InboundMessage } from '../channel.port';

/** `/remember <text>` and `/forget <id>` for the sender's own memories (their person scope). */
@Injectable()
export class MemoryCommands {
  constructor(
    private readonly store: MemoryStore,
    private readonly turns: TurnMemory,
  ) {}

  async run(m: InboundMessage, agentId: string, name: 'remember' | 'forget', args: string[], prefix: string): Promise<string> {
    const person = this.turns.personOf({ channel: m.channel, endpointId: m.sender.id });
    if (!person) return 'I cannot tell who you are here, so I cannot keep memories for you.';
    const scope = { person, agentId };
    try {
      if (name === 'remember') {
        const text = m.text.trim().replace(/^\S+\s*/, '');
        if (!text) return `Usage: ${prefix}remember <something to remember>`;
        const id = await this.store.store(text, { scope, source: 'tool', metadata: { channel: m.channel, via: 'command' } });
        return `Remembered (id ${id}). ${prefix}forget ${id} removes it.`;
      }
      if (!args[0]) return `Usage: ${prefix}forget <id>`;
      await this.store.forget(args[0], scope);
      return `Forgot ${args[0]}.`;
    } catch (e) {
      return isNestclawError(e) ? e.message : 'Sorry, memory failed; please try again.';
    }
  }
}
