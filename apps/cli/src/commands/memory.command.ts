import { Command } from 'commander';
import { dim, green, note, out } from '../cli-output';
import { call, run } from '../gateway-api';

type Progress = { state: string; done: number; total: number; rate?: number; error?: string; reason?: string };

function bar(p: Progress): string {
  const width = 30;
  const share = p.total ? Math.min(1, p.done / p.total) : p.state === 'done' ? 1 : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(share * 100)}% ${p.done}/${p.total} chunks${p.rate ? `, ${p.rate}/s` : ''}`;
}

/** `nestclaw memory add|search|forget|reindex|status`, through the running gateway's HTTP API. */
export function memoryCommand(): Command {
  const memory = new Command('memory')
    .description('long-term memory: add, search, forget, reindex, status')
    .option('--url <url>', 'gateway URL');
  const opts = () => memory.opts<{ url?: string }>();
  memory
    .command('add')
    .description('remember a fact (as the owner)')
    .argument('<text...>', 'the fact')
    .option('--agent <id>', 'agent', 'default')
    .action((text: string[], o: { agent: string }) =>
      run(async () => {
        const { id } = await call<{ id: string }>(opts(), '/v1/memory', { json: { content: text.join(' '), agentId: o.agent } });
        out(`remembered ${id}`);
        return 0;
      })(),
    );
  memory
    .command('search')
    .description('search memories')
    .argument('<query...>', 'what to look for')
    .option('-k <n>', 'results', '5')
    .option('--mode <mode>', 'keyword | vector | hybrid')
    .option('--agent <id>', 'agent', 'default')
    .action((query: string[], o: { k: string; mode?: string; agent: string }) =>
      run(async () => {
        const q = new URLSearchParams({ q: query.join(' '), k: o.k, agentId: o.agent, ...(o.mode ? { mode: o.mode } : {}) });
        const r = await call<{
          mode: string;
          fallback?: string;
          results: { id: string; score: number; content: string; source: string; createdAt: string }[];
        }>(opts(), `/v1/memory/search?${q}`);
        if (r.fallback) note(dim(r.fallback));
        if (r.results.length === 0) out('no memories found');
        for (const h of r.results)
          out(`${h.id}  ${h.source}  ${h.createdAt.slice(0, 10)}  ${h.content.replace(/\s+/g, ' ').slice(0, 200)}`);
        return 0;
      })(),
    );
  memory
    .command('forget')
    .description('forget a memory by id')
    .argument('<id>', 'memory id')
    .action((id: string) =>
      run(async () => {
        await call(opts(), `/v1/memory/${encodeURIComponent(id)}`, { method: 'DELETE' });
        out(`forgot ${id}`);
        return 0;
      })(),
    );
  memory
    .command('status')
    .description('counts, queue, index version and mode')
    .action(() =>
      run(async () => {
        const s = await call<Record<string, unknown>>(opts(), '/v1/memory/status');
        out(JSON.stringify(s, null, 2));
        return 0;
      })(),
    );
  memory
    .command('reindex')
    .description('rebuild the search index from the database, with progress')
    .action(() =>
      run(async () => {
        let p = await call<Progress>(opts(), '/admin/reindex', { method: 'POST' });
        const tty = process.stderr.isTTY;
        while (p.state === 'running') {
          if (tty) process.stderr.write(`\r${bar(p)}`);
          await new Promise((r) => setTimeout(r, 250));
          p = await call<Progress>(opts(), '/admin/reindex');
        }
        if (tty) process.stderr.write(`\r${bar(p)}\n`);
        if (p.state === 'failed') throw new Error(`reindex failed: ${p.error}`);
        out(green(`✔ index rebuilt: ${p.done} chunks`));
        return 0;
      })(),
    );
  return memory;
}
