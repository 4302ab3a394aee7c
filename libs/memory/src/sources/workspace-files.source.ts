import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FailureThrottle, fileStamp, readConfinedFile } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { WorkspaceLocator } from '@nestclaw/tool';
import { MemoryRepository } from '../store/memory.repository';
import { MemoryService } from '../store/memory.service';

const SCAN = 'memory-workspace-files';
/** A memory file larger than this is read only up to it (a runaway file must not exhaust memory). */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * `MEMORY.md` and `memory/*.md` in each agent's workspace become memories of `memory.files.scope`
 * (the owner by default: the workspace is the operator's). Polled on an interval: a changed file
 * (size or mtime) is re-read, and re-chunked only when its text changed; a removed file's memory is
 * forgotten. Each file is read through the confined reader (as the file tools' checks are): a link the
 * sandbox made to a file outside the workspace, or a FIFO, is skipped with a warning, never read as the
 * gateway's user into the owner's memory.
 */
@Injectable()
export class WorkspaceFilesSource implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MemoryFiles');
  private readonly seen = new Map<string, string>();
  /** The reason each refused file was last skipped for, so a refusal is logged once, not every scan. */
  private readonly refused = new Map<string, string>();
  /** Per agent: the files present when its memories were last reconciled with the database. */
  private readonly reconciled = new Map<string, string>();
  private scanning = false;
  /** A database outage fails every scan the same way: logged once, summed up per minute, scans spaced out. */
  private readonly failures: FailureThrottle;

  constructor(
    private readonly config: ConfigService,
    private readonly workspaces: WorkspaceLocator,
    private readonly memories: MemoryService,
    private readonly repo: MemoryRepository,
    private readonly scheduler: SchedulerRegistry,
  ) {
    this.failures = new FailureThrottle('scanning workspace memory files', this.logger, {
      baseDelayMs: config.get().memory.files.scan_interval,
    });
  }

  onApplicationBootstrap(): void {
    const { enabled, files } = this.config.get().memory;
    if (!enabled || !files.enabled) return;
    void this.scan();
    this.scheduler.addInterval(
      SCAN,
      setInterval(() => void this.scan(), files.scan_interval),
    );
  }

  onApplicationShutdown(): void {
    if (this.scheduler.doesExist('interval', SCAN)) this.scheduler.deleteInterval(SCAN);
  }

  /** One pass over every agent workspace; returns how many memories changed. */
  async scan(): Promise<number> {
    if (this.scanning || !this.failures.due()) return 0;
    this.scanning = true;
    let changed = 0;
    try {
      const cfg = this.config.get();
      for (const [agentId, agent] of Object.entries(cfg.agents)) {
        if (agent.workspace.scope === 'session') continue;
        const dir = this.workspaces.forContext({ sessionId: '', turnId: '', agentId }, agent).hostPath;
        changed += await this.scanAgent(agentId, dir, cfg.memory.files.scope);
      }
      this.failures.succeeded();
    } catch (e) {
      this.failures.failed(e);
    } finally {
      this.scanning = false;
    }
    return changed;
  }

  private async scanAgent(agentId: string, dir: string, scope: string): Promise<number> {
    const files = candidateFiles(dir);
    const prefix = `file:${agentId}:`;
    let changed = 0;
    const present = new Set<string>();
    for (const rel of files) {
      const key = `${prefix}${rel}`;
      let stamp: string;
      try {
        stamp = fileStamp(statSync(join(dir, rel)));
      } catch {
        continue; // gone (or a dangling link) since the listing
      }
      if (this.seen.get(key) === stamp) {
        present.add(key);
        continue;
      }
      const read = readConfinedFile(dir, rel, { maxBytes: MAX_FILE_BYTES });
      if (!read.ok) {
        if (!read.missing && this.refused.get(key) !== read.reason) this.logger.warn(`skipping ${join(dir, rel)}: ${read.reason}`);
        if (!read.missing) this.refused.set(key, read.reason);
        continue; // not present: a memory it made earlier is forgotten below
      }
      this.refused.delete(key);
      present.add(key);
      const text = read.file.head;
      if (text.trim()) {
        if (await this.memories.replace({ scope, agentId, content: text, source: 'file', sourceKey: key, metadata: { path: rel } }))
          changed++;
      } else {
        changed += await this.memories.forgetSourceKeys([key]);
      }
      this.seen.set(key, stamp);
    }
    // Which file memories to forget is asked of the database only when the listing changed: an
    // unchanged workspace costs no round trip (an idle gateway stays under one a second, issue 23).
    const listing = [...present].sort().join('\n');
    if (!changed && this.reconciled.get(prefix) === listing) return 0;
    const gone = (await this.repo.liveSourceKeys(prefix)).filter((k) => !present.has(k));
    if (gone.length) {
      changed += await this.memories.forgetSourceKeys(gone);
      for (const k of gone) this.seen.delete(k);
    }
    this.reconciled.set(prefix, listing);
    return changed;
  }
}

/** `MEMORY.md` and `memory/*.md`; a `memory` that is a symlink is not listed (its files would be outside anyway). */
function candidateFiles(dir: string): string[] {
  const files = ['MEMORY.md'];
  const sub = join(dir, 'memory');
  try {
    if (lstatSync(sub).isDirectory()) for (const f of readdirSync(sub)) if (f.endsWith('.md')) files.push(`memory/${f}`);
  } catch {
    // no memory folder
  }
  return files;
}
