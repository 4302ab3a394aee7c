import { Injectable } from '@nestjs/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { SkillCatalog, skillsPromptText } from '../skills/skill.catalog';
import { BootstrapFiles } from './bootstrap-files';
import { localTime } from './local-time';

export type PromptMode = AgentConfig['prompt_mode'];

/** One titled block of the system prompt. */
export interface PromptSection {
  /** Stable id, e.g. `bootstrap:SOUL.md`, `context`, `skills`. */
  id: string;
  /** Heading shown to the model; omitted for the base identity. */
  title?: string;
  text: string;
}

/** What a turn's prompt is built for. */
export interface PromptContext {
  agentId: string;
  sessionId: string;
  channel: string;
  /** The message being answered. */
  message: string;
  signal?: AbortSignal;
}

export interface PromptRequest extends PromptContext {
  agent: AgentConfig;
  mode?: PromptMode;
  /** Who is talking, as the channel knows them (absent: the owner through the API). */
  sender?: string;
  now?: Date;
}

/**
 * The layered system prompt: base identity → bootstrap files → dynamic context → skills (tool
 * definitions travel beside it in the request; recalled memories follow it as their own system
 * message, added by AgentService through the memory lib's TurnMemory port). `minimal` keeps identity,
 * context and tools (subagents, cheap tasks); `none` sends no system prompt at all. Stable layers
 * come first so providers' prompt caches keep hitting while the dynamic ones change.
 */
@Injectable()
export class SystemPromptBuilder {
  constructor(
    private readonly config: ConfigService,
    private readonly bootstrap: BootstrapFiles,
    private readonly skills: SkillCatalog,
  ) {}

  async sections(req: PromptRequest): Promise<PromptSection[]> {
    const mode = req.mode ?? req.agent.prompt_mode;
    if (mode === 'none') return [];
    const out: PromptSection[] = [{ id: 'identity', text: req.agent.system_prompt ?? this.config.get().prompts.system }];
    if (mode === 'full') {
      for (const f of this.bootstrap.load(req.agentId, req.agent.bootstrap)) {
        if (f.text) out.push({ id: `bootstrap:${f.name}`, title: f.name, text: f.text });
      }
    }
    out.push({ id: 'context', title: 'Context', text: dynamicContext(req) });
    if (mode === 'full') {
      // Skills are only worth listing when the agent can read them.
      const skills = req.agent.tools.includes('skill_read') ? skillsPromptText(this.skills.list(req.agentId)) : '';
      if (skills) out.push({ id: 'skills', title: 'Skills', text: skills });
    }
    return out;
  }

  async build(req: PromptRequest): Promise<string | undefined> {
    const sections = await this.sections(req);
    return sections.length ? renderSections(sections) : undefined;
  }
}

export function renderSections(sections: readonly PromptSection[]): string {
  return sections.map((s) => (s.title ? `## ${s.title}\n${s.text}` : s.text)).join('\n\n');
}

function dynamicContext(req: PromptRequest): string {
  const now = req.now ?? new Date();
  const tz = req.agent.timezone;
  let local: string;
  try {
    local = localTime(now, tz);
  } catch {
    local = `${now.toISOString().slice(0, 16).replace('T', ' ')} (UTC; "${tz}" is not a valid time zone)`;
  }
  // No session id: two identical requests must stay identical for the provider's answer replay and prompt cache.
  return [`Now: ${local} (${tz})`, `Channel: ${req.channel}`, `Talking with: ${req.sender ?? 'the owner'}`].join('\n');
}
