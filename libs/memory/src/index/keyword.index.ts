/**
 * BM25 over the shared tokenizer's terms, in memory. LanceDB's full-text search only ranks rows
 * that an `optimize` pass has indexed (seconds at 100k rows); rows added since come back unranked
 * and cut off, so a fresh memory could be missed. This index is always current: a write is visible
 * to the next query. It is derived from the terms column of the LanceDB table at start-up and
 * rebuilt with it, so it holds nothing that is not on disk. It keeps ids and term postings only
 * (no text): hits are read back from the LanceDB table.
 *
 * Per-document data sits in parallel packed arrays and scoring accumulates into a reused
 * Float64Array, so a query touching tens of thousands of postings allocates nothing per posting.
 */
const K1 = 1.2;
const B = 0.75;

export interface KeywordDoc {
  chunkId: string;
  memoryId: string;
  scope: string;
  agentId: string;
  terms: string;
}

export interface KeywordHit {
  chunkId: string;
  memoryId: string;
}

interface Postings {
  docs: number[];
  tfs: number[];
}

export class KeywordIndex {
  private chunkIds: number[] = [];
  private memoryIds: string[] = [];
  /** scope + agent, interned; -1 once the doc is removed. */
  private owners: number[] = [];
  private lengths: number[] = [];
  private postings = new Map<string, Postings>();
  private ownerIds = new Map<string, number>();
  private byMemory = new Map<string, number[]>();
  private liveCount = 0;
  private totalLength = 0;
  private dead = 0;
  private scores = new Float64Array(0);

  get size(): number {
    return this.liveCount;
  }

  /** Whether the index holds rows of this memory (a new memory needs no delete before its add). */
  has(memoryId: string): boolean {
    return this.byMemory.has(memoryId);
  }

  private ownerId(scope: string, agentId: string, create: boolean): number | undefined {
    const key = `${scope}\u0000${agentId}`;
    let id = this.ownerIds.get(key);
    if (id === undefined && create) this.ownerIds.set(key, (id = this.ownerIds.size));
    return id;
  }

  add(d: KeywordDoc): void {
    const terms = d.terms ? d.terms.split(' ') : [];
    const ord = this.chunkIds.length;
    this.chunkIds.push(Number(d.chunkId));
    this.memoryIds.push(d.memoryId);
    this.owners.push(this.ownerId(d.scope, d.agentId, true)!);
    this.lengths.push(terms.length);
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
      if (this.owners[ord] < 0) continue;
      this.owners[ord] = -1;
      this.liveCount--;
      this.totalLength -= this.lengths[ord];
      this.dead++;
    }
    this.byMemory.delete(memoryId);
    // Dead docs still sit in posting lists; rebuild once they are a large share.
    if (this.dead > 10_000 && this.dead > this.liveCount) this.compact();
  }

  /** Top `limit` chunks of this person and agent, best first (the scope filter runs inside the scoring loop). */
  search(scope: string, agentId: string, terms: readonly string[], limit: number): KeywordHit[] {
    const owner = this.ownerId(scope, agentId, false);
    if (owner === undefined || this.liveCount === 0) return [];
    const n = this.liveCount;
    const avg = this.totalLength / n || 1;
    if (this.scores.length < this.chunkIds.length) this.scores = new Float64Array(Math.max(1024, this.chunkIds.length * 1.5));
    const scores = this.scores;
    const touched: number[] = [];
    const owners = this.owners;
    const lengths = this.lengths;
    for (const t of new Set(terms)) {
      const p = this.postings.get(t);
      if (!p) continue;
      const df = p.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const { docs, tfs } = p;
      for (let i = 0; i < df; i++) {
        const ord = docs[i];
        if (owners[ord] !== owner) continue;
        const tf = tfs[i];
        const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[ord]) / avg));
        if (scores[ord] === 0) touched.push(ord);
        scores[ord] += s;
      }
    }
    // Top-k by insertion into a short sorted list: most candidates fail the threshold check at once.
    const top: number[] = [];
    const topScores: number[] = [];
    for (const ord of touched) {
      const s = scores[ord];
      scores[ord] = 0;
      if (top.length === limit && s <= topScores[top.length - 1]) continue;
      let i = top.length;
      while (i > 0 && topScores[i - 1] < s) i--;
      top.splice(i, 0, ord);
      topScores.splice(i, 0, s);
      if (top.length > limit) {
        top.pop();
        topScores.pop();
      }
    }
    return top.map((ord) => ({ chunkId: String(this.chunkIds[ord]), memoryId: this.memoryIds[ord] }));
  }

  private compact(): void {
    const live = new Map<number, string[]>();
    for (const [t, p] of this.postings)
      p.docs.forEach((ord, i) => {
        if (this.owners[ord] < 0) return;
        let list = live.get(ord);
        if (!list) live.set(ord, (list = []));
        for (let k = 0; k < p.tfs[i]; k++) list.push(t);
      });
    const ownerOf = new Map([...this.ownerIds.entries()].map(([k, v]) => [v, k.split('\u0000')]));
    const old = { chunkIds: this.chunkIds, memoryIds: this.memoryIds, owners: this.owners };
    this.chunkIds = [];
    this.memoryIds = [];
    this.owners = [];
    this.lengths = [];
    this.postings = new Map();
    this.byMemory = new Map();
    this.liveCount = 0;
    this.totalLength = 0;
    this.dead = 0;
    old.owners.forEach((owner, ord) => {
      if (owner < 0) return;
      const [scope, agentId] = ownerOf.get(owner)!;
      this.add({
        chunkId: String(old.chunkIds[ord]),
        memoryId: old.memoryIds[ord],
        scope,
        agentId,
        terms: (live.get(ord) ?? []).join(' '),
      });
    });
  }
}
