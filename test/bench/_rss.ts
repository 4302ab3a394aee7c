import { readFileSync } from 'node:fs';
import { LanceIndex } from '../../libs/memory/src/index/lance.index';
const D = 256, N = 100_000, dir = '/tmp/lx/rss';
let seed = 7; const r = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
const vec = () => { const v = Array.from({ length: D }, r); const n = Math.hypot(...v); return v.map((x) => x / n); };
const anon = () => Math.round(Number(readFileSync('/proc/self/status', 'utf8').match(/RssAnon:\s+(\d+)/)![1]) / 1024);
const words = ['部署','会议','invoice','deploy','预算','backup','客户','latency','合同','release','飞书','kubernetes','报销','oncall','测试'];
(async () => {
  const idx: any = new LanceIndex();
  if (process.argv[2] === 'build') {
    require('node:fs').rmSync(dir, { recursive: true, force: true });
    await idx.open(dir);
    const b = await idx.startBuild(D);
    for (let p = 0; p < N; p += 5000) await b.add(Array.from({ length: 5000 }, (_, j) => { const i = p + j + 1; return { chunkId: String(i), memoryId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, scope: 'owner', agentId: 'default', terms: `${words[i % 15]} ${words[(i * 7) % 15]} 记录 ${i} note number ${i} about ${words[(i * 13) % 15]}`, vector: vec() }; }));
    await b.finish({ schema: 3, tokenizer: 't', embedding: 'x' });
    await idx.onApplicationShutdown();
    return;
  }
  global.gc!(); const a0 = anon(); const h0 = process.memoryUsage();
  if (process.argv[2] === 'openonly') await idx.open(dir);
  if (process.argv[2] === 'open') {
    await idx.open(dir);
    const qs = Array.from({ length: 300 }, vec);
    for (const q of qs) { await idx.vector('owner', 'default', q, 50); idx.keyword('owner', 'default', ['部署', 'note'], 50); }
  }
  global.gc!(); const h1 = process.memoryUsage();
  console.log(process.argv[2], 'anon +', anon() - a0, 'MB; heap +', ((h1.heapUsed - h0.heapUsed) / 2 ** 20).toFixed(0), 'external +', ((h1.external - h0.external) / 2 ** 20).toFixed(0));
})();
