import { randomUUID } from 'node:crypto';
import { observeStatements } from '@nestclaw/db';
import { IntDatabase, openIntDatabase, uniqueId } from '@nestclaw/testing';
import type { IndexWorker } from '../queue/index.worker';
import { MemoryBatchWriter } from './memory-batch.writer';
import { MemoryRepository } from './memory.repository';
import { sha256 } from './memory.service';
import type { NewMemory } from './memory.types';

/** A transcript memory as MemoryService.prepare makes it (one chunk). */
function transcript(sourceKey: string, content: string): NewMemory & { sourceKey: string } {
  return {
    id: randomUUID(),
    scope: 'owner',
    agentId: 'main',
    content,
    source: 'transcript',
    sourceKey,
    metadata: { turnId: sourceKey },
    contentHash: sha256(content),
    chunks: [{ text: content, tokenCount: 5, contentHash: sha256(content) }],
  };
}

describe('MemoryBatchWriter (real database)', () => {
  let int: IntDatabase;
  let repo: MemoryRepository;
  let kicks = 0;
  // The index worker is told that there is work; the queue rows themselves are checked below.
  const worker = { kick: () => void kicks++ } as unknown as IndexWorker;
  beforeAll(async () => {
    int = await openIntDatabase();
    repo = new MemoryRepository(int.db);
  });
  afterAll(async () => {
    observeStatements(undefined);
    await int?.close();
  });

  const rows = (keys: string[]) =>
    int.db.query<{ source_key: string; content: string; chunks: number; queued: number }>(
      `SELECT m.source_key, m.content,
              (SELECT count(*)::int FROM memory_chunks c WHERE c.memory_id = m.id) AS chunks,
              (SELECT count(*)::int FROM index_queue q WHERE q.memory_id = m.id) AS queued
         FROM memories m WHERE m.source_key = ANY($1) ORDER BY m.source_key`,
      [keys],
    );

  it('writes the turns finished together in one statement: memories, chunks and queue entries', async () => {
    const writer = new MemoryBatchWriter(repo, worker);
    const keys = Array.from({ length: 10 }, (_, i) => `transcript:${uniqueId(`t${i}`)}`);
    const seen: string[] = [];
    observeStatements((text) => void seen.push(text));
    keys.forEach((k, i) => writer.add(transcript(k, `User: 第${i}个问题\nAssistant: answer ${i}`)));
    await writer.beforeApplicationShutdown();
    observeStatements(undefined);
    expect(seen).toHaveLength(1);
    const stored = (await rows(keys)).rows;
    expect(stored).toHaveLength(10);
    expect(stored.every((r) => r.chunks === 1 && r.queued === 1)).toBe(true);
    expect(stored.map((r) => r.content)).toContain('User: 第3个问题\nAssistant: answer 3');
    expect(kicks).toBeGreaterThan(0);
  });

  it('replaces a source key already stored (a turn run again) and keeps the last of duplicates', async () => {
    const writer = new MemoryBatchWriter(repo, worker);
    const again = `transcript:${uniqueId('again')}`;
    const twice = `transcript:${uniqueId('twice')}`;
    writer.add(transcript(again, 'User: hi\nAssistant: first answer'));
    await writer.beforeApplicationShutdown();
    writer.add(transcript(again, 'User: hi\nAssistant: second answer'));
    writer.add(transcript(twice, 'User: one\nAssistant: a'));
    writer.add(transcript(twice, 'User: one\nAssistant: b'));
    await writer.beforeApplicationShutdown();
    const stored = (await rows([again, twice])).rows;
    expect(stored.map((r) => [r.source_key, r.content, r.chunks])).toEqual(
      [
        [again, 'User: hi\nAssistant: second answer', 1],
        [twice, 'User: one\nAssistant: b', 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });
});
