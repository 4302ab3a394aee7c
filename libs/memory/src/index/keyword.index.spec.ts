import { indexTerms, queryTerms } from '../text/tokenizer';
import { KeywordIndex } from './keyword.index';

const ids = (hits: { chunkId: string }[]) => hits.map((h) => h.chunkId);

const doc = (chunkId: string, text: string, scope = 'owner', memoryId = `m-${chunkId}`) => ({
  chunkId,
  memoryId,
  scope,
  agentId: 'default',
  terms: indexTerms(text).join(' '),
});

describe('in-memory BM25 keyword index', () => {
  it('ranks the document matching more and rarer query terms first', () => {
    const idx = new KeywordIndex();
    idx.add(doc('1', "Alice's flight to Lisbon departs at gate B10."));
    idx.add(doc('2', "Hiro's flight to Seoul departs at gate B17."));
    idx.add(doc('3', 'Hiro plays the mandolin.'));
    expect(ids(idx.search('owner', 'default', queryTerms('Hiro flight gate'), 3))).toEqual(['2', '1', '3']);
  });

  it('sees a document as soon as it is added (no optimize pass)', () => {
    const idx = new KeywordIndex();
    for (let i = 0; i < 200; i++) idx.add(doc(String(i), `note ${i} about deploy`));
    idx.add(doc('9999', '张伟对花生过敏'));
    expect(ids(idx.search('owner', 'default', queryTerms('张伟对什么过敏'), 5))).toEqual(['9999']);
  });

  it("never returns another person's documents", () => {
    const idx = new KeywordIndex();
    idx.add(doc('7', 'spare key under the blue flowerpot', 'token:alice'));
    expect(ids(idx.search('token:bob', 'default', queryTerms('spare key'), 5))).toEqual([]);
    expect(ids(idx.search('token:alice', 'default', queryTerms('spare key'), 5))).toEqual(['7']);
  });

  it('drops every chunk of a removed memory', () => {
    const idx = new KeywordIndex();
    idx.add(doc('1', 'wifi password zebra', 'owner', 'm1'));
    idx.add(doc('2', 'wifi password kumquat', 'owner', 'm1'));
    idx.add(doc('3', 'wifi router in the hall', 'owner', 'm2'));
    idx.removeMemory('m1');
    expect(ids(idx.search('owner', 'default', queryTerms('wifi password'), 5))).toEqual(['3']);
    expect(idx.size).toBe(1);
  });

  it('answers the same after removed documents are compacted away', () => {
    const idx = new KeywordIndex();
    // Two chunks per memory, so compaction must keep each memory's chunk chain.
    for (let i = 0; i < 12_000; i++) {
      idx.add(doc(String(2 * i), `note ${i} about deploy`, 'owner', `m${i}`));
      idx.add(doc(String(2 * i + 1), `note ${i} about budget`, i % 2 ? 'owner' : 'token:bob', `m${i}`));
    }
    for (let i = 0; i < 11_000; i++) idx.removeMemory(`m${i}`);
    expect(idx.size).toBe(2_000);
    expect(ids(idx.search('owner', 'default', queryTerms('note 11001 deploy'), 1))).toEqual(['22002']);
    expect(ids(idx.search('owner', 'default', queryTerms('note 5 deploy'), 5))).not.toContain('10');
    idx.removeMemory('m11001');
    expect(ids(idx.search('owner', 'default', queryTerms('11001'), 5))).toEqual([]);
    expect(ids(idx.search('token:bob', 'default', queryTerms('budget 11002'), 1))).toEqual(['22005']);
  });
});
