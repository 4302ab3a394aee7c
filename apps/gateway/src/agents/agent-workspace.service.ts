import { Injectable } from '@nestjs/common';
import { BootstrapFiles, describePrompt, PromptReport, SystemPromptBuilder } from '@nestclaw/agent';
import { NestclawError, readConfinedFile } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import { AuditService, BOOTSTRAP_FILES, ToolRegistry } from '@nestclaw/tool';
import { configuredAgent } from './configured-agent';
import { replaceWorkspaceFile } from './workspace-file.writer';

/** The most a workspace file may hold when read or written here (the prompt keeps less: `agents.<id>.bootstrap`). */
export const WORKSPACE_FILE_MAX_BYTES = 256 * 1024;

/**
 * An agent's workspace files as the control UI's Agents page edits them: the bootstrap files only
 * (AGENTS.md, SOUL.md, …: its system prompt), read through the confined reader the prompt uses, written
 * whole or not at all without following a link, each write audited; and what its prompt costs.
 */
@Injectable()
export class AgentWorkspaceService {
  constructor(
    private readonly config: ConfigService,
    private readonly bootstrap: BootstrapFiles,
    private readonly prompts: SystemPromptBuilder,
    private readonly tools: ToolRegistry,
    private readonly audit: AuditService,
  ) {}

  /** What each file and prompt layer costs in tokens, and a "hello" request in all. */
  report(agentId: string): Promise<PromptReport> {
    const agent = this.agent(agentId);
    return describePrompt(
      { prompts: this.prompts, bootstrap: this.bootstrap, tools: this.tools.definitionsFor(agent.tools) },
      agentId,
      agent,
    );
  }

  read(agentId: string, name: string): { name: string; content: string; bytes: number } {
    this.agent(agentId);
    const file = this.fileName(name);
    this.bootstrap.ensure(agentId);
    const r = readConfinedFile(this.bootstrap.dir(agentId), file, { maxBytes: WORKSPACE_FILE_MAX_BYTES });
    if (!r.ok && r.missing) return { name: file, content: '', bytes: 0 };
    if (!r.ok) throw new NestclawError('conflict', `${file} is not read: ${r.reason}. Fix it in ${this.bootstrap.dir(agentId)}`);
    if (r.file.omittedBytes > 0)
      throw new NestclawError('payload_too_large', `${file} is larger than ${WORKSPACE_FILE_MAX_BYTES} bytes: edit it on the host`);
    return { name: file, content: r.file.head, bytes: r.file.size };
  }

  async write(agentId: string, name: string, content: string, actor: string): Promise<PromptReport> {
    this.agent(agentId);
    const file = this.fileName(name);
    if (Buffer.byteLength(content) > WORKSPACE_FILE_MAX_BYTES)
      throw new NestclawError('payload_too_large', `${file} may hold at most ${WORKSPACE_FILE_MAX_BYTES} bytes`);
    this.bootstrap.ensure(agentId);
    // Written beside it and renamed over it: a reader sees the old text or the new, and a link in the
    // way is refused, never followed.
    replaceWorkspaceFile(this.bootstrap.dir(agentId), file, content);
    await this.audit.record({
      actor,
      action: 'workspace.write',
      target: `${agentId}/${file}`,
      outcome: 'written',
      detail: { bytes: Buffer.byteLength(content) },
    });
    return this.report(agentId);
  }

  private agent(agentId: string): AgentConfig {
    return configuredAgent(this.config, agentId);
  }

  private fileName(name: string): string {
    if ((BOOTSTRAP_FILES as readonly string[]).includes(name)) return name;
    throw new NestclawError('not_found', `"${name}" is not a workspace file edited here (${BOOTSTRAP_FILES.join(', ')})`);
  }
}
