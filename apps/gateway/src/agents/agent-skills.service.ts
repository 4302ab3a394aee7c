import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { checkSkillText, MAX_SKILL_BYTES, Skill, SKILL_NAME, SKILL_NAME_RULE, SkillCatalog } from '@nestclaw/agent';
import { NestclawError, readConfinedFile } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { AuditService } from '@nestclaw/tool';
import { configuredAgent } from './configured-agent';
import { replaceWorkspaceFile } from './workspace-file.writer';

/** One skill as the Agents page shows and edits it. */
export interface SkillView {
  name: string;
  source: Skill['source'];
  /** Only a skill in the agent's own workspace is edited here; shared and built-in ones are shown. */
  editable: boolean;
  content: string;
  /** Sent back with an edit: a save over a SKILL.md that changed since it was read is refused. */
  version: string;
  bytes: number;
  /** Why the catalog skips this SKILL.md (its front matter), absent when it is listed. */
  problem?: string;
}

/** A workspace SKILL.md as it is on disk. */
interface OnDisk {
  content: string;
  bytes: number;
  version: string;
}

const versionOf = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 16);

/**
 * An agent's skills as the control UI's Agents page reads and edits them: `<workspace>/skills/<name>/SKILL.md`
 * read through the confined reader and written through the workspace files' writer (every level inside
 * the workspace, no link followed), at most the catalog's size, with front matter the catalog accepts and
 * under the name it is saved as, and against the version that was read. The catalog forgets what it had,
 * so the next turn's prompt lists the new text. Shared and built-in skills are read-only here.
 */
@Injectable()
export class AgentSkillsService {
  constructor(
    private readonly config: ConfigService,
    private readonly catalog: SkillCatalog,
    private readonly audit: AuditService,
  ) {}

  read(agentId: string, name: string): SkillView {
    configuredAgent(this.config, agentId);
    const skill = this.catalog.get(agentId, skillName(name));
    const place = this.place(agentId, name, skill);
    const file = this.onDisk(place);
    if (file) {
      const checked = checkSkillText(place.folder, file.content, file.bytes);
      const problem = !checked.ok ? checked.error : checked.name !== name ? `its front matter names it "${checked.name}"` : undefined;
      return { name, source: 'workspace', editable: true, ...file, ...(problem ? { problem } : {}) };
    }
    if (!skill) {
      const known = this.catalog.list(agentId).map((s) => s.name);
      throw new NestclawError('not_found', `Agent "${agentId}" has no skill "${name}" (its skills: ${known.join(', ') || 'none'})`);
    }
    const bytes = Buffer.byteLength(skill.body);
    return { name, source: skill.source, editable: false, content: skill.body, version: versionOf(skill.body), bytes };
  }

  /**
   * Creates (no `version`) or replaces (the `version` read) a skill in the agent's workspace. A name
   * that a shared or built-in skill holds gets a workspace skill of that name, which wins over it for
   * this agent, as the catalog orders its sources.
   */
  async write(agentId: string, name: string, content: string, version: string | undefined, actor: string): Promise<SkillView> {
    configuredAgent(this.config, agentId);
    const place = this.place(agentId, skillName(name), this.catalog.get(agentId, name));
    const bytes = Buffer.byteLength(content);
    if (bytes > MAX_SKILL_BYTES)
      throw new NestclawError('payload_too_large', `SKILL.md may hold at most ${MAX_SKILL_BYTES} bytes (this one has ${bytes})`);
    const checked = checkSkillText(place.folder, content, bytes);
    if (!checked.ok)
      throw new NestclawError(
        'invalid_request',
        `This SKILL.md would be skipped: ${checked.error}. Start it with front matter such as "---\\nname: ${name}\\ndescription: when to use it\\n---"`,
      );
    if (checked.name !== name)
      throw new NestclawError(
        'invalid_request',
        `The front matter names the skill "${checked.name}", but it is saved as "${name}": write "name: ${name}" or leave name out`,
      );
    // Compared and written with no await between them: two saves through this gateway cannot interleave.
    const current = this.onDisk(place);
    if (version === undefined && current)
      throw new NestclawError('conflict', `Skill "${name}" already exists in the workspace: read it and send its version to replace it`);
    if (version !== undefined && !current)
      throw new NestclawError('conflict', `Skill "${name}" was removed from the workspace since it was read: reload the skills`);
    if (current && version !== current.version)
      throw new NestclawError(
        'conflict',
        `Skill "${name}" changed since it was read (now version ${current.version}): reload it and edit again`,
      );
    const path = replaceWorkspaceFile(place.root, place.file, content);
    this.catalog.forget(path);
    await this.audit.record({
      actor,
      action: 'skill.write',
      target: `${agentId}/${place.file}`,
      outcome: current ? 'replaced' : 'created',
      detail: { bytes },
    });
    return this.read(agentId, name);
  }

  /** The agent's workspace and its SKILL.md for `name`: the listed skill's own folder, else `skills/<name>`. */
  private place(agentId: string, name: string, skill: Skill | undefined): { root: string; folder: string; file: string } {
    const skills = this.catalog.roots(agentId).find((r) => r.source === 'workspace')!.dir;
    const folder = skill?.source === 'workspace' && skill.path ? basename(dirname(skill.path)) : name;
    return { root: dirname(skills), folder, file: join(basename(skills), folder, 'SKILL.md') };
  }

  private onDisk(place: { root: string; file: string }): OnDisk | undefined {
    // One byte more than allowed tells a too-large file from one exactly at the limit.
    const r = readConfinedFile(place.root, place.file, { maxBytes: MAX_SKILL_BYTES + 1 });
    if (!r.ok && r.missing) return undefined;
    if (!r.ok) throw new NestclawError('conflict', `${place.file} is not read: ${r.reason}. Fix it in ${place.root}`);
    if (r.file.size > MAX_SKILL_BYTES)
      throw new NestclawError('payload_too_large', `${place.file} is larger than ${MAX_SKILL_BYTES} bytes: edit it on the host`);
    return { content: r.file.head, bytes: r.file.size, version: versionOf(r.file.head) };
  }
}

function skillName(name: string): string {
  if (SKILL_NAME.test(name)) return name;
  throw new NestclawError('invalid_request', `"${name}" is not a skill name: ${SKILL_NAME_RULE}`);
}
