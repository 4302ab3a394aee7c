import { Injectable, Logger } from '@nestjs/common';
import { closeSync, existsSync, fchownSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileStamp, readConfinedFile, withoutNul } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { WorkspaceLocator } from '@nestclaw/tool';
import { BOOTSTRAP_FILES, BOOTSTRAP_MARKER, BOOTSTRAP_TEMPLATES, BootstrapFileName } from './bootstrap-templates';
import { truncateHeadTail } from './truncate-head-tail';

export interface BootstrapFile {
  name: BootstrapFileName;
  path: string;
  /** Characters in the file (a file too large to read whole: characters read plus bytes left unread). */
  chars: number;
  /** What goes into the prompt (possibly cut); empty when the file is missing, empty or refused. */
  text: string;
  /** Characters left out to fit the budgets. */
  cut: number;
  /** Why the file was not read (a symlink out of the workspace, a FIFO, …). */
  refused?: string;
}

/** What was read of a file: its head and tail when it is larger than the bytes the budget can use. */
interface Content {
  text: string;
  /** Bytes between head and tail that were never read. */
  omitted: number;
  refused?: string;
}

interface Cached extends Content {
  stamp: string;
}

/** Bytes a JS character can take in UTF-8 (a 4-byte character is two UTF-16 units): reading 3× the budget is enough. */
const BYTES_PER_CHAR = 3;
/** The head share read of an over-long file is at least what truncateHeadTail keeps (70 %), the tail its 20 %. */
const TAIL_READ_SHARE = 0.25;

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
        for (const name of BOOTSTRAP_FILES) createOnly(join(dir, name), BOOTSTRAP_TEMPLATES[name]);
        createOnly(join(dir, BOOTSTRAP_MARKER), 'templates written; delete this file to restore missing ones\n');
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
    const maxBytes = BYTES_PER_CHAR * Math.min(budget.max_file_chars, budget.max_total_chars);
    return BOOTSTRAP_FILES.map((name) => {
      const path = join(dir, name);
      const read = this.read(dir, name, maxBytes);
      const content = read.text.trim();
      const chars = content.length + read.omitted;
      const allowed = Math.max(0, Math.min(budget.max_file_chars, left));
      const { text, cut } =
        allowed < 200 && chars > allowed ? { text: '', cut: chars } : truncateHeadTail(content, allowed, name, read.omitted);
      left -= text.length;
      return { name, path, chars, text, cut, ...(read.refused ? { refused: read.refused } : {}) };
    });
  }

  /**
   * One file through the confined reader the file tools' checks share: the gateway reads as its own
   * user, so a link the sandbox made to `config.yaml` must not bring its secrets into the prompt.
   */
  private read(dir: string, name: string, maxBytes: number): Content {
    const path = join(dir, name);
    let stamp: string;
    try {
      stamp = `${maxBytes}:${fileStamp(statSync(path))}`;
    } catch {
      stamp = 'none'; // missing or a dangling link: the reader says which
    }
    const hit = this.cache.get(path);
    if (hit && hit.stamp === stamp) return hit;
    const r = readConfinedFile(dir, name, { maxBytes, tailBytes: Math.floor(maxBytes * TAIL_READ_SHARE) });
    let content: Content;
    if (r.ok) {
      const { head, tail, omittedBytes } = r.file;
      // No separator: the junction falls in the middle that truncateHeadTail cuts (it keeps less head and tail than was read).
      content = { text: withoutNul(head + tail), omitted: omittedBytes };
    } else {
      content = { text: '', omitted: 0, ...(r.missing ? {} : { refused: r.reason }) };
      if (!r.missing && hit?.refused !== r.reason) this.logger.warn(`not reading ${path} into the prompt: ${r.reason}`);
    }
    this.cache.set(path, { ...content, stamp });
    return content;
  }
}

/**
 * Writes a new file; anything already in its place (a file, or a symlink, dangling or not) is left alone,
 * never written through. The file gets its workspace's owner: the sandbox (another uid when the gateway
 * runs as root) edits these files with file_write, and a root-owned template would refuse it.
 */
function createOnly(path: string, content: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o660);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return;
  }
  try {
    writeSync(fd, content);
    const folder = statSync(dirname(path));
    if (process.getuid?.() === 0 && folder.uid !== 0) fchownSync(fd, folder.uid, folder.gid);
  } finally {
    closeSync(fd);
  }
}
