import { Injectable, Logger } from '@nestjs/common';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileStamp, readConfinedFile, withoutNul } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { WorkspaceLocator } from '@nestclaw/tool';
import { BUILTIN_SKILLS } from './builtin-skills';
import { MAX_DESCRIPTION_CHARS, Skill, SkillSource } from './skill';
import { checkSkillText, MAX_SKILL_BYTES, parseSkillFile } from './skill-file.parser';

interface CachedFile {
  stamp: string;
  skill: Omit<Skill, 'unavailable'> | { invalid: string };
}

/** How long a PATH lookup for a required binary is trusted. */
const BIN_TTL_MS = 10_000;
/** A skills folder unchanged for this long is trusted by its stamp alone. */
const SETTLED_MS = 1000;

/**
 * Skills for an agent: `<agent workspace>/skills/<name>/SKILL.md`, then `$NESTCLAW_HOME/skills`,
 * then the built-in ones; the first source holding a name wins. Folders are listed again when they
 * changed and each SKILL.md re-parsed only when it changed, so new and edited skills appear on the next
 * turn without a restart. A SKILL.md is read through the confined reader: one that is a symlink out
 * of its skills folder (or a FIFO) is skipped with a warning, never read as the gateway's user.
 */
@Injectable()
export class SkillCatalog {
  private readonly logger = new Logger('Skills');
  private readonly files = new Map<string, CachedFile>();
  private readonly listings = new Map<string, { stamp: string; entries: string[] }>();
  private readonly bins = new Map<string, { found: boolean; at: number }>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly config: ConfigService,
    private readonly workspaces: WorkspaceLocator,
  ) {}

  roots(agentId: string): { source: SkillSource; dir: string }[] {
    return [
      { source: 'workspace', dir: join(this.workspaces.agentDir(agentId), 'skills') },
      { source: 'global', dir: join(this.config.home, 'skills') },
    ];
  }

  /** Built-in skills never change: parsed once, not on every turn's prompt. */
  private readonly builtins = BUILTIN_SKILLS.flatMap((b) => {
    const parsed = parseSkillFile(b.body);
    return parsed.ok ? [{ ...this.fromMeta(b.name, parsed.meta, b.body), source: 'builtin' as const }] : [];
  });

  /** Every skill the agent can see, by name, available ones and unavailable ones (with the reason). */
  list(agentId: string): Skill[] {
    const byName = new Map<string, Skill>();
    for (const { source, dir } of this.roots(agentId)) {
      for (const skill of this.scan(dir, source)) if (!byName.has(skill.name)) byName.set(skill.name, skill);
    }
    for (const b of this.builtins) if (!byName.has(b.name)) byName.set(b.name, this.withAvailability(b));
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(agentId: string, name: string): Skill | undefined {
    return this.list(agentId).find((s) => s.name === name);
  }

  /**
   * A SKILL.md the gateway itself just wrote (`<root>/<folder>/SKILL.md`): its parse and its folder's
   * listing are dropped, so the next list reads them again even when a stamp could not tell (a folder
   * made within the settled second, a rewrite that kept size and mtime).
   */
  forget(path: string): void {
    this.files.delete(path);
    this.listings.delete(dirname(dirname(path)));
  }

  private scan(dir: string, source: SkillSource): Skill[] {
    const entries = this.entries(dir);
    const out: Skill[] = [];
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const path = join(dir, entry, 'SKILL.md');
      const skill = this.readFile(dir, entry, source);
      if (!skill) continue;
      if ('invalid' in skill) {
        if (!this.warned.has(`${path}:${skill.invalid}`)) {
          this.warned.add(`${path}:${skill.invalid}`);
          this.logger.warn(`skipping ${path}: ${skill.invalid}`);
        }
        continue;
      }
      out.push(this.withAvailability(skill));
    }
    return out;
  }

  /**
   * The folder's entries, sorted; listed again only when the folder's stamp changed (adding,
   * removing or renaming an entry changes its mtime), so a turn costs one stat per skills folder
   * instead of a listing, and a missing folder no exception.
   */
  private entries(dir: string): readonly string[] {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (!st?.isDirectory()) {
      this.listings.delete(dir);
      return [];
    }
    const stamp = fileStamp(st);
    const hit = this.listings.get(dir);
    // Folder times are coarse (a few ms): one changed within the last second is listed every time.
    if (hit && hit.stamp === stamp && Date.now() - st.mtimeMs > SETTLED_MS) return hit.entries;
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return [];
    }
    this.listings.set(dir, { stamp, entries });
    return entries;
  }

  private readFile(dir: string, folder: string, source: SkillSource): CachedFile['skill'] | undefined {
    const path = join(dir, folder, 'SKILL.md');
    let stamp: string;
    try {
      stamp = fileStamp(statSync(path));
    } catch {
      this.files.delete(path);
      return undefined;
    }
    const hit = this.files.get(path);
    if (hit && hit.stamp === stamp) return hit.skill;
    // One byte more than allowed tells a too-large file from one exactly at the limit.
    const read = readConfinedFile(dir, join(folder, 'SKILL.md'), { maxBytes: MAX_SKILL_BYTES + 1 });
    let skill: CachedFile['skill'];
    if (!read.ok) {
      skill = { invalid: read.reason };
    } else {
      const body = withoutNul(read.file.head);
      const checked = checkSkillText(folder, body, read.file.size);
      skill = checked.ok ? { ...this.fromMeta(checked.name, checked.meta, body), source, path } : { invalid: checked.error };
    }
    this.files.set(path, { stamp, skill });
    return skill;
  }

  private fromMeta(
    name: string,
    meta: { description: string; requires: Skill['requires'] },
    body: string,
  ): Omit<Skill, 'unavailable' | 'source'> & { source: SkillSource } {
    const line = meta.description.replace(/\s+/g, ' ').trim();
    const description = line.length > MAX_DESCRIPTION_CHARS ? `${line.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : line;
    return { name, description, body, requires: meta.requires, source: 'builtin' };
  }

  private withAvailability(skill: Omit<Skill, 'unavailable'>): Skill {
    const missingBins = skill.requires.bins.filter((b) => !this.onPath(b));
    const missingEnv = skill.requires.env.filter((v) => !process.env[v]);
    const reasons = [
      ...(missingBins.length ? [`missing binary ${missingBins.join(', ')}`] : []),
      ...(missingEnv.length ? [`missing environment variable ${missingEnv.join(', ')}`] : []),
    ];
    return reasons.length ? { ...skill, unavailable: reasons.join('; ') } : skill;
  }

  private onPath(bin: string): boolean {
    if (!/^[A-Za-z0-9._+-]+$/.test(bin)) return false;
    const hit = this.bins.get(bin);
    if (hit && Date.now() - hit.at < BIN_TTL_MS) return hit.found;
    const found = (process.env.PATH ?? '').split(delimiter).some((d) => {
      if (!d) return false;
      try {
        accessSync(join(d, bin), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    this.bins.set(bin, { found, at: Date.now() });
    return found;
  }
}

/** The skills layer of the prompt: one line per skill, the instructions stay on disk. */
export function skillsPromptText(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((s) => `- ${s.name}: ${s.description}${s.unavailable ? ` (unavailable: ${s.unavailable})` : ''}`);
  return `Call skill_read with a skill's name to get its instructions before using it.\n${lines.join('\n')}`;
}
