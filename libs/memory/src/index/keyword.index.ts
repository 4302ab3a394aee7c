/**
 * BM25 over the shared tokenizer's terms, in memory. LanceDB's full-text search only ranks rows
 * that an `optimize` pass has indexed (seconds at 100k rows); rows added since come back unranked
 * and cut off, so a fresh memory could be missed. This index is always current: a write is visible
 * to the next query. It is derived from the terms column of the LanceDB table at start-up and
 * rebuilt with it, so it holds nothing that is not on disk.
 */
const K1 = 1.2;
const B = 0.75;

interface Doc {
  chunkId: string;
  memoryId: string;
  /** scope + agent, interned. */
  owner: number;
  length: number;
  alive: boolean;
}

export interface KeywordDoc {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  terms: string;
}

export class KeywordIndex {
  private docs: Doc[] = [];
  /** term → doc ordinals and term frequencies, appended in doc order. */
  private postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private owners = new Map<string, number>();
  private byMemory = new Map<string, number[]>();
  private liveCount = 0;
  private totalLength = 0;
  private dead = 0;

  get size(): number {
    return this.liveCount;
  }

  private ownerId(scope: string, agentId: string, create: boolean): number | undefined {
    const key = `${scope}\u0000${agentId}`;
    let id = this.owners.get(key);
    if (id === undefined && create) this.owners.set(key, (id = this.owners.size));
    return id;
  }

  add(d: KeywordDoc): void {
    const terms = d.terms ? d.terms.split(' ') : [];
    const ord = this.docs.length;
    this.docs.push({
      chunkId: d.chunkId,
      memoryId: d.memoryId,
      owner: this.ownerId(d.scope, d.agentId, true)!,
      length: terms.length,
      alive: true,
    });
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = { docs: [], tfs: [] }));
      p.docs.push(ord);
      p.tfs.push(n);
    }
    const list = this.byMemory.get(d.memoryId);
    if (list) list.push(ord);
    else this.byMemory.set(d.memoryId, [ord]);
    this.liveCount++;
    this.totalLength += terms.length;
  }

  removeMemory(memoryId: string): void {
    for (const ord of this.byMemory.get(memoryId) ?? []) {
      const doc = this.docs[ord];
      if (!doc.alive) continue;
      doc.alive = false;
      this.liveCount--;
      this.totalLength -= doc.length;
      this.dead++;
    }
    this.byMemory.delete(memoryId);
    // Dead docs still sit in posting lists; rebuild once they are a large share.
    if (this.dead > 10_000 && this.dead > this.liveCount) this.compact();
  }

  /** Top `limit` chunk ids of this person and agent, best first. */
  search(scope: string, agentId: string, terms: readonly string[], limit: number): string[] {
    const owner = this.ownerId(scope, agentId, false);
    if (owner === undefined || this.liveCount === 0) return [];
    const n = this.liveCount;
    const avg = this.totalLength / n || 1;
    const scores = new Map<number, number>();
    for (const t of new Set(terms)) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = Math.log(1 + (n - p.docs.length + 0.5) / (p.docs.length + 0.5));
      for (let i = 0; i < p.docs.length; i++) {
        const ord = p.docs[i];
        const doc = this.docs[ord];
        if (doc.owner !== owner || !doc.alive) continue;
        const tf = p.tfs[i];
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / avg));
        scores.set(ord, (scores.get(ord) ?? 0) + s);
      }
    }
    // Top-k by insertion into a short sorted list: most candidates fail the threshold check at once.
    const top: [number, number][] = [];
    for (const [ord, s] of scores) {
      if (top.length === limit && s <= top[top.length - 1][1]) continue;
      let i = top.length;
      while (i > 0 && top[i - 1][1] < s) i--;
      top.splice(i, 0, [ord, s]);
      if (top.length > limit) top.pop();
    }
    return top.map(([ord]) => this.docs[ord].chunkId);
  }

  private compact(): void {
    const old = this.docs;
    const terms = new Map<number, string[]>();
    for (const [t, p] of this.postings)
      p.docs.forEach((ord, i) => old[ord].alive && (terms.get(ord) ?? terms.set(ord, []).get(ord)!).push(...Array(p.tfs[i]).fill(t)));
    const owners = [...this.owners.entries()];
    const ownerOf = (id: number) => owners.find(([, v]) => v === id)![0].split('\u0000');
    this.docs = [];
    this.postings = new Map();
    this.byMemory = new Map();
    this.liveCount = 0;
    this.totalLength = 0;
    this.dead = 0;
    old.forEach((d, ord) => {
      if (!d.alive) return;
      const [scope, agentId] = ownerOf(d.owner);
      this.add({ chunkId: d.chunkId, memoryId: d.memoryId, scope, agentId, terms: (terms.get(ord) ?? []).join(' ') });
    });
  }
}
