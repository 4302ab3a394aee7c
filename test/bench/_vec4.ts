import { connect, Index } from '@lancedb/lancedb';
import { rmSync, readFileSync } from 'node:fs';
import { toArrow, schemaFor } from '../../libs/memory/src/index/index-arrow';
const D = 256, N = 100_000;
const anon = () => Math.round(Number(readFileSync('/proc/self/status', 'utf8').match(/RssAnon:\s+(\d+)/)![1]) / 1024);
let seed = 7; const r = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
const centres = Array.from({ length: 500 }, () => Array.from({ length: D }, r));
const vec = () => { const c = centres[Math.floor((r() + 0.5) * 500) % 500]; const v = c.map((x) => x + r() * 0.8); const n = Math.hypot(...v); return v.map((x) => x / n); };
const mode = process.argv[2];
(async () => {
  const dir = '/tmp/lx/vec4-' + mode; rmSync(dir, { recursive: true, force: true });
  let db = await connect(dir);
  let t = await db.createEmptyTable('t', schemaFor(D));
  for (let p = 0; p < N; p += 10000) await t.add(toArrow(Array.from({ length: 10000 }, (_, j) => { const i = p + j + 1; return { chunkId: String(i), memoryId: 'm' + i, scope: 'owner', agentId: 'default', terms: 't', vector: vec() }; }), D));
  await t.createIndex('scope', { config: Index.bitmap() }); await t.createIndex('agent_id', { config: Index.bitmap() });
  const qs = Array.from({ length: 100 }, vec);
  const truth: string[][] = [];
  for (const q of qs) truth.push((await t.vectorSearch(q).distanceType('cosine').bypassVectorIndex().select(['chunk_id']).limit(10).toArray()).map((x: any) => String(x.chunk_id)));
  let s = performance.now();
  const cfg = mode === 'flat' ? Index.ivfFlat({ distanceType: 'cosine', numPartitions: 158 }) : Index.ivfRq({ distanceType: 'cosine', numPartitions: 158, numBits: Number(mode.slice(2)) });
  await t.createIndex('vector', { config: cfg });
  const build = (performance.now() - s) / 1000;
  t.close(); db.close(); global.gc!();
  db = await connect(dir); t = await db.openTable('t');
  global.gc!(); const a0 = anon();
  for (const refine of [0, 4]) {
    const ts: number[] = []; let rec = 0; const cpu = process.cpuUsage();
    for (let k = 0; k < 2; k++) for (let i = 0; i < qs.length; i++) { s = performance.now(); let q: any = t.vectorSearch(qs[i]).distanceType('cosine').where(`scope = 'owner' AND agent_id = 'default'`).nprobes(8).select(['chunk_id', 'memory_id', '_distance']).limit(50); if (refine) q = q.refineFactor(refine); const out = await q.toArray(); ts.push(performance.now() - s); if (k) rec += out.slice(0, 10).filter((x: any) => truth[i].includes(String(x.chunk_id))).length / 10; }
    const c = process.cpuUsage(cpu); ts.sort((a, b) => a - b);
    global.gc!();
    console.log(`${mode} refine ${refine}`.padEnd(18), 'build', build.toFixed(1), 's p50', ts[100].toFixed(2), 'p95', ts[190].toFixed(2), 'cpu', ((c.user + c.system) / 1000 / 200).toFixed(2), 'recall@10', (rec / qs.length).toFixed(3), 'anon +', anon() - a0);
  }
})();
