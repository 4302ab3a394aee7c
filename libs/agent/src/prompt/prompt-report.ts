import { countChatTokens, countTokens } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import type { ToolSchema } from '@nestclaw/tool';
import type { BootstrapFiles } from './bootstrap-files';
import { renderSections, SystemPromptBuilder } from './system-prompt.builder';

export interface PromptReport {
  agentId: string;
  workspace: string;
  mode: AgentConfig['prompt_mode'];
  files: {
    name: string;
    path: string;
    chars: number;
    includedChars: number;
    cutChars: number;
    tokens: number;
    /** Why the file was left out unread (a symlink leading out of the workspace, a FIFO, …). */
    refused?: string;
  }[];
  /** Tokens per prompt layer (identity, bootstrap:<file>, context, memories, skills). */
  sections: { id: string; tokens: number }[];
  toolTokens: number;
  /** A whole request for the message "hello" with no history: system prompt, tools and the message. */
  helloTokens: number;
}

/** What an agent's prompt holds and costs, for `nestclaw agent files` and the benchmark. */
export async function describePrompt(
  deps: { prompts: SystemPromptBuilder; bootstrap: BootstrapFiles; tools: ToolSchema[] },
  agentId: string,
  agent: AgentConfig,
): Promise<PromptReport> {
  const files = deps.bootstrap.load(agentId, agent.bootstrap);
  const sections = await deps.prompts.sections({ agentId, agent, sessionId: '(new session)', channel: 'cli', message: 'hello' });
  const system = sections.length ? renderSections(sections) : undefined;
  const messages = [...(system ? [{ content: system }] : []), { content: 'hello' }];
  return {
    agentId,
    workspace: deps.bootstrap.dir(agentId),
    mode: agent.prompt_mode,
    files: files.map((f) => ({
      name: f.name,
      path: f.path,
      chars: f.chars,
      includedChars: f.text.length,
      cutChars: f.cut,
      tokens: countTokens(f.text),
      ...(f.refused ? { refused: f.refused } : {}),
    })),
    sections: sections.map((s) => ({ id: s.id, tokens: countTokens(s.title ? `## ${s.title}\n${s.text}` : s.text) })),
    toolTokens: deps.tools.length ? countTokens(JSON.stringify(deps.tools)) : 0,
    helloTokens: countChatTokens(messages, deps.tools),
  };
}
