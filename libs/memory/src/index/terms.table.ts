import { closeSync, existsSync, fsyncSync, openSync, readFileSync, rmSync } from 'node:fs';
import { replaceFileWhole } from '@nestclaw/common';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IndexBuild } from './derived-index';
import type { IndexRow } from './index-arrow';
import type { IndexVersion } from './index-version';
import { KeywordIndex } from './keyword.index';

/**
 * A keyword-only build (no embedding model, the default) lives in a plain file instead of a LanceDB
 * table: LanceDB would only store the terms, yet loading it cost the gateway ~50 MB of native library
 * pages and ~40 MB of allocations (issue 23, ADR 0011 "Keyword-only builds are a file"). Builds of
 * this kind are named `terms_<ms>` and stored as `<name>.terms`.
 */
export const isTermsTable = (name: string): boolean => name.startsWith('terms_');
export const termsFile = (dir: string, name: string): string => join(dir, `${name}.terms`);

/** One write, one JSON line: the memories it replaces (`d`), then their rows as [chunk, memory, scope, agent, terms]. */
interface Line {
  d: string[];
  r: [string, string, string, string, string][];
}

const lineOf = (memoryIds: string[], rows: IndexRow[]): string =>
  `${JSON.stringify({ d: memoryIds, r: rows.map((r) => [r.chunkId, r.memoryId, r.scope, r.agentId, r.terms]) } satisfies Line)}\n`;

/**
 * Replays the file: memory id → its rows, in write order. `torn` when a line does not parse (a crash
 * mid-append; the feed cursor was not saved past that write, so it is applied again).
 */
function replay(file: string): { memories: Map<string, Line['r']>; torn: boolean } {
  const memories = new Map<string, Line['r']>();
  let torn = false;
  for (const text of existsSync(file) ? readFileSync(file, 'utf8').split('\n') : []) {
    if (!text) continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      torn = true;
      continue;
    }
    for (const id of line.d) memories.delete(id);
    for (const r of line.r) {
      const rows = memories.get(r[1]);
      if (rows) rows.push(r);
      else memories.set(r[1], [r]);
    }
  }
  return { memories, torn };
}

/** Writes the live rows to a new file and renames it over the old one: replaced and removed rows leave the disk. */
function rewrite(file: string, memories: Map<string, Line['r']>): void {
  const rows = [...memories.values()].flat();
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i += 1_000) lines.push(`${JSON.stringify({ d: [], r: rows.slice(i, i + 1_000) } satisfies Line)}\n`);
  replaceFileWhole(file, lines.join(''), 0o600);
}

function keywordsOf(memories: Map<string, Line['r']>): KeywordIndex {
  const keywords = new KeywordIndex();
  for (const rows of memories.values())
    for (const [chunkId, memoryId, scope, agentId, terms] of rows) keywords.add({ chunkId, memoryId, scope, agentId, terms });
  return keywords;
}

/**
 * A keyword-only build: an append-only file of writes, replayed into the in-memory KeywordIndex when
 * first used. A write is one appended line. A memory left with no rows (forgotten, its file deleted)
 * rewrites the file without it at once, so its terms leave the disk; so does a file holding more
 * replaced rows than live ones.
 */
export class TermsTable {
  private constructor(
    private readonly file: string,
    readonly keywords: KeywordIndex,
    /** Rows in the file that a later write replaced or removed. */
    private stale: number,
  ) {}

  static open(file: string): TermsTable {
    if (!existsSync(file)) throw new Error(`${file} is missing`);
    const { memories, torn } = replay(file);
    if (torn) rewrite(file, memories);
    return new TermsTable(file, keywordsOf(memories), 0);
  }

  /** A build's file, with the keyword index filled while it was written. */
  static built(file: string, keywords: KeywordIndex): TermsTable {
    return new TermsTable(file, keywords, 0);
  }

  get count(): number {
    return this.keywords.size;
  }

  async apply(memoryIds: string[], rows: IndexRow[]): Promise<void> {
    const kept = new Set(rows.map((r) => r.memoryId));
    const erases = memoryIds.some((id) => this.keywords.has(id) && !kept.has(id));
    await appendFile(this.file, lineOf(memoryIds, rows));
    const before = this.keywords.size;
    for (const id of memoryIds) this.keywords.removeMemory(id);
    this.stale += before - this.keywords.size;
    for (const r of rows) this.keywords.add(r);
    if (erases || this.stale > Math.max(1_000, this.keywords.size)) this.compact();
  }

  /** Rewrites the file with the live rows only. */
  compact(): void {
    rewrite(this.file, replay(this.file).memories);
    this.stale = 0;
  }
}

/** A keyword-only rebuild into `<dir>/<name>.terms`; `done` switches the index over to it. */
export function startTermsBuild(dir: string, name: string, done: (table: TermsTable, version: IndexVersion) => Promise<void>): IndexBuild {
  const file = termsFile(dir, name);
  closeSync(openSync(file, 'w', 0o600));
  const keywords = new KeywordIndex();
  return {
    add: async (rows) => {
      if (!rows.length) return;
      await appendFile(file, lineOf([], rows));
      for (const r of rows) keywords.add(r);
    },
    finish: async (version) => {
      // index-version.json will name this file: its bytes must be on disk first.
      const fd = openSync(file, 'r');
      fsyncSync(fd);
      closeSync(fd);
      await done(TermsTable.built(file, keywords), version);
    },
    abandon: async () => rmSync(file, { force: true }),
  };
}
