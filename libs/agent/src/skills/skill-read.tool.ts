import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Tool, ToolError, ToolRuntime } from '@nestclaw/tool';
import { SkillCatalog } from './skill.catalog';

const input = z.object({ name: z.string().min(1).max(64).describe('Skill name from the Skills list') });

/** Gives the model a skill's full SKILL.md on demand, so the prompt only carries one line per skill. */
@Injectable()
export class SkillReadTool implements Tool<typeof input> {
  readonly name = 'skill_read';
  readonly description = "Read a skill's instructions (SKILL.md).";
  readonly input = input;
  readonly sideEffects = () => false;

  constructor(private readonly catalog: SkillCatalog) {}

  async execute(ctx: ToolRuntime, { name }: z.output<typeof input>): Promise<string> {
    const skill = this.catalog.get(ctx.agentId, name);
    if (!skill) {
      const names = this.catalog.list(ctx.agentId).map((s) => s.name);
      throw new ToolError(`no skill named "${name}"; available: ${names.join(', ') || '(none)'}`);
    }
    const note = skill.unavailable ? `[This skill is unavailable here: ${skill.unavailable}.]\n\n` : '';
    return note + skill.body;
  }
}
