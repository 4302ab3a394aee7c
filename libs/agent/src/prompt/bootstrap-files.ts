import { Injectable, Logger } from '@nestjs/common';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentConfig } from '@nestclaw/config';
import { WorkspaceLocator } from '@nestclaw/tool';
import { BOOTSTRAP_FILES, BOOTSTRAP_MARKER, BOOTSTRAP_TEMPLATES, BootstrapFileName } from './bootstrap-templates';
import { truncateHeadTail } from './truncate-head-tail';

export interface BootstrapFile {
  name: BootstrapFileName;
  path: string;
  /** Characters in the file. */
  chars: number;
  /** What goes into the prompt (possibly cut); empty when the file is missing or empty. */
  text: string;
  /** Characters left out to fit the budgets. */
  cut: number;
}

interface Cached {
  mtimeMs: number;
  size: number;
  content: string;
}

/**
 * The agent's workspace files that shape its prompt. Created from templates the first time an
 * agent runs; read on every turn through a stat-checked cache, so an edit shows up on the next
 * turn without a restart and an unchanged file costs one stat.
 */
@Injectable()
export class BootstrapFiles {
  private readonly logger = new Logger('Bootstrap');
  private readonly cache = new Map<string, Cached>();
  private readonly ensured = new Set<string>();

  constructor(private readonly workspaces: WorkspaceLocator) {}

  dir(agentId: string): string {
    return this.workspaces.agentDir(agentId);
  }

  /** Writes the templates once per workspace; files the user deleted later stay deleted. */
  ensure(agentId: string): void {
    const dir = this.dir(agentId);
    if (this.ensured.has(dir)) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o770 });
      if (!existsSync(join(dir, BOOTSTRAP_MARKER))) {
        for (const name of BOOTSTRAP_FILES) {
          const path = join(dir, name);
          if (!existsSync(path)) writeFileSync(path, BOOTSTRAP_TEMPLATES[name], { mode: 0o660 });
        }
        writeFileSync(join(dir, BOOTSTRAP_MARKER), 'templates written; delete this file to restore missing ones\n');
        this.logger.log(`created bootstrap files for agent "${agentId}" in ${dir}`);
      }
      this.ensured.add(dir);
    } catch (e) {
      this.logger.warn(`could not create bootstrap files in ${dir}: ${(e as Error).message}`);
    }
  }

  /** The files in prompt order, each within the per-file budget and all within the total. */
  load(agentId: string, budget: AgentConfig['bootstrap']): BootstrapFile[] {
    this.ensure(agentId);
    const dir = this.dir(agentId);
    let left = budget.max_total_chars;
    return BOOTSTRAP_FILES.map((name) => {
      const path = join(dir, name);
      const content = this.read(path).trim();
      const allowed = Math.max(0, Math.min(budget.max_file_chars, left));
      const { text, cut } =
        allowed < 200 && content.length > allowed ? { text: '', cut: content.length } : truncateHeadTail(content, allowed, name);
      left -= text.length;
      return { name, path, chars: content.length, text, cut };
    });
  }

  private read(path: string): string {
    let st;
    try {
      st = statSync(path);
    } catch {
      this.cache.delete(path);
      return '';
    }
    const hit = this.cache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.content;
    try {
      const content = readFileSync(path, 'utf8').replace(/\0/g, '');
      this.cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, content });
      return content;
    } catch (e) {
      this.logger.warn(`could not read ${path}: ${(e as Error).message}`);
      return '';
    }
  }
}
