/**
 * BM25 over the shared tokenizer's terms, in memory. LanceDB's full-text search only ranks rows
 * that an `optimize` pass has indexed (seconds at 100k rows); rows added since come back unranked
 * and cut off, so a fresh memory could be missed. This index is always current: a write is visible
 * to the next query. It is derived from the terms column of the LanceDB table at start-up and
 * rebuilt with it, so it holds nothing that is not on disk. It keeps ids and term postings only
 * (no text): hits are read back from the LanceDB table.
 *
 * Compact because it lives in the V8 heap: per-document data sits in growable typed arrays, each
 * posting is one small integer (document ordinal × 256 + term frequency), a memory's chunks are
 * chained through an Int32Array, and scoring accumulates into a reused Float64Array, so a query
 * touching tens of thousands of postings allocates nothing per posting.
 */
const K1 = 1.2;
const B = 0.75;
/** Term frequencies above this count as this (BM25 saturates long before). */
const MAX_TF = 255;
const TF_BITS = 8;
/** A removed document's owner. */
const REMOVED = -1;
const NONE = -1;

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

function grown<T extends Float64Array | Int32Array>(arr: T, need: number, make: (n: number) => T): T {
  if (need <= arr.length) return arr;
  const next = make(Math.max(need, arr.length * 2));
  next.set(arr);
  return next;
}

export class KeywordIndex {
  /** Documents ever added; ordinals index the per-document arrays. */
  private count = 0;
  private chunkIds = new Float64Array(1024);
  /** scope + agent, interned; REMOVED once the document is removed. */
  private owners = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  /** The previous chunk of the same memory, NONE at the first. */
  private previousOfMemory = new Int32Array(1024);
  private memoryIds: string[] = [];
  /** Memory id → its last added document. */
  private lastOfMemory = new Map<string, number>();
  private postings = new Map<string, number[]>();
  private ownerIds = new Map<string, number>();
  private liveCount = 0;
  private totalLength = 0;
  private dead = 0;
  private scores = new Float64Array(0);

  get size(): number {
    return this.liveCount;
  }

  /** Whether the index holds rows of this memory (a new memory needs no delete before its add). */
  has(memoryId: string): boolean {
    return this.lastOfMemory.has(memoryId);
  }

  private ownerId(scope: string, agentId: string, create: boolean): number | undefined {
    const key = `${scope}\u0000${agentId}`;
    let id = this.ownerIds.get(key);
    if (id === undefined && create) this.ownerIds.set(key, (id = this.ownerIds.size));
    return id;
  }

  add(d: KeywordDoc): void {
    const terms = d.terms ? d.terms.split(' ') : [];
    const ord = this.count++;
    this.chunkIds = grown(this.chunkIds, this.count, (n) => new Float64Array(n));
    this.owners = grown(this.owners, this.count, (n) => new Int32Array(n));
    this.lengths = grown(this.lengths, this.count, (n) => new Int32Array(n));
    this.previousOfMemory = grown(this.previousOfMemory, this.count, (n) => new Int32Array(n));
    this.chunkIds[ord] = Number(d.chunkId);
    this.owners[ord] = this.ownerId(d.scope, d.agentId, true)!;
    this.lengths[ord] = terms.length;
    this.memoryIds.push(d.memoryId);
    this.previousOfMemory[ord] = this.lastOfMemory.get(d.memoryId) ?? NONE;
    this.lastOfMemory.set(d.memoryId, ord);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      const posting = ord * (1 << TF_BITS) + Math.min(n, MAX_TF);
      const p = this.postings.get(t);
      if (p) p.push(posting);
      else this.postings.set(t, [posting]);
    }
    this.liveCount++;
    this.totalLength += terms.length;
  }

  removeMemory(memoryId: string): void {
    for (let ord = this.lastOfMemory.get(memoryId) ?? NONE; ord !== NONE; ord = this.previousOfMemory[ord]) {
      if (this.owners[ord] === REMOVED) continue;
      this.owners[ord] = REMOVED;
      this.liveCount--;
      this.totalLength -= this.lengths[ord];
      this.dead++;
    }
    this.lastOfMemory.delete(memoryId);
    // Dead docs still sit in posting lists (and count in document frequencies); rebuild once they are a fair share.
    if (this.dead > Math.max(1_000, this.liveCount / 4)) this.compact();
  }

  /** Top `limit` chunks of this person and agent, best first (the scope filter runs inside the scoring loop). */
  search(scope: string, agentId: string, terms: readonly string[], limit: number): KeywordHit[] {
    const owner = this.ownerId(scope, agentId, false);
    if (owner === undefined || this.liveCount === 0) return [];
    const n = this.liveCount;
    const avg = this.totalLength / n || 1;
    if (this.scores.length < this.count) this.scores = new Float64Array(Math.max(1024, this.count * 1.5));
    const scores = this.scores;
    const touched: number[] = [];
    const owners = this.owners;
    const lengths = this.lengths;
    for (const t of new Set(terms)) {
      const p = this.postings.get(t);
      if (!p) continue;
      // Postings of removed documents are still counted until the next compaction: never above n, so idf stays positive.
      const df = Math.min(p.length, n);
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < p.length; i++) {
        const ord = p[i] >>> TF_BITS;
        if (owners[ord] !== owner) continue;
        const tf = p[i] & MAX_TF;
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

  /** Drops the removed documents: live ones are renumbered in order and their postings remapped. */
  private compact(): void {
    const renumbered = new Int32Array(this.count).fill(NONE);
    let next = 0;
    for (let ord = 0; ord < this.count; ord++) {
      if (this.owners[ord] === REMOVED) continue;
      const to = next++;
      renumbered[ord] = to;
      this.chunkIds[to] = this.chunkIds[ord];
      this.owners[to] = this.owners[ord];
      this.lengths[to] = this.lengths[ord];
      this.memoryIds[to] = this.memoryIds[ord];
      // A memory's chunks are removed together, so an earlier chunk of a live one is live too.
      const previous = this.previousOfMemory[ord];
      this.previousOfMemory[to] = previous === NONE ? NONE : renumbered[previous];
    }
    this.count = next;
    this.memoryIds.length = next;
    for (const [memoryId, last] of this.lastOfMemory) this.lastOfMemory.set(memoryId, renumbered[last]);
    for (const [term, p] of this.postings) {
      let kept = 0;
      for (const posting of p) {
        const to = renumbered[posting >>> TF_BITS];
        if (to !== NONE) p[kept++] = to * (1 << TF_BITS) + (posting & MAX_TF);
      }
      if (kept === 0) this.postings.delete(term);
      else p.length = kept;
    }
    this.dead = 0;
  }
}
