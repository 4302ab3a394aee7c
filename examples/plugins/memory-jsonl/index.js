'use strict';
// A memory search store for nestclaw (docs/plugins.md, "Memory stores"): the chunks nestclaw sends live in
// <dir>/chunks.jsonl, one JSON object a line, rewritten whole on each change (a sample, not a database).
// nestclaw keeps the truth in PostgreSQL: it refills this file when it is missing or empty, and re-reads
// every hit from the database, so a stale line here can never bring back a forgotten memory.
const { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

/** Words of Latin-script text, and each Han/Kana/Hangul character with its pair (so 门禁 matches 门禁密码). */
function terms(text) {
  const out = [];
  const lower = String(text).toLowerCase();
  for (const w of lower.match(/[\p{L}\p{N}]+/gu) || []) {
    if (!/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(w)) {
      if (w.length > 1) out.push(w);
      continue;
    }
    const chars = [...w];
    chars.forEach((c, i) => {
      out.push(c);
      if (i + 1 < chars.length) out.push(c + chars[i + 1]);
    });
  }
  return out;
}

function openStore(dir) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'chunks.jsonl');
  /** chunkId → chunk */
  const chunks = new Map();
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) if (line.trim()) chunks.set(JSON.parse(line).chunkId, JSON.parse(line));
  }
  const save = () => {
    const body = [...chunks.values()].map((c) => JSON.stringify(c)).join('\n');
    writeFileSync(`${file}.tmp`, body ? `${body}\n` : '');
    renameSync(`${file}.tmp`, file);
  };
  const dropMemories = (ids) => {
    const gone = new Set(ids);
    for (const [id, c] of chunks) if (gone.has(c.memoryId)) chunks.delete(id);
  };
  return {
    async upsert(list) {
      dropMemories(list.map((c) => c.memoryId));
      for (const c of list)
        chunks.set(c.chunkId, { chunkId: c.chunkId, memoryId: c.memoryId, scope: c.scope, agentId: c.agentId, text: c.text });
      save();
    },
    async remove(memoryIds) {
      dropMemories(memoryIds);
      save();
    },
    async search({ query, scope, agentId, limit }) {
      const wanted = new Set(terms(query));
      const scored = [];
      for (const c of chunks.values()) {
        if (c.scope !== scope || c.agentId !== agentId) continue;
        const score = new Set(terms(c.text).filter((t) => wanted.has(t))).size;
        if (score > 0) scored.push({ c, score });
      }
      scored.sort((a, b) => b.score - a.score);
      return scored.slice(0, limit).map(({ c }) => ({ chunkId: c.chunkId, memoryId: c.memoryId }));
    },
    async count() {
      return chunks.size;
    },
    async reset() {
      chunks.clear();
      save();
    },
  };
}

exports.register = (api) => {
  api.registerMemoryStore({ id: 'memory-jsonl', create: () => openStore(String(api.config.dir)) });
};
