import { indexTerms, queryTerms, stem } from './tokenizer';

const matches = (fact: string, query: string) => {
  const terms = new Set(indexTerms(fact));
  return queryTerms(query).some((t) => terms.has(t));
};

describe('memory tokenizer', () => {
  it('finds a 2-character Chinese word inside a sentence', () => {
    expect(matches('我对花生过敏，不能吃花生酱', '过敏')).toBe(true);
  });

  it('finds a ≥3-character query that is not verbatim in the fact', () => {
    expect(matches('飞书的插件需要重新配置', '飞书插件配置')).toBe(true);
  });

  it('finds a word jieba does not know through its bigram', () => {
    expect(indexTerms('飞书的插件')).toContain('飞书');
    expect(queryTerms('飞书')).toContain('飞书');
  });

  it('never turns a CJK query into one phrase term', () => {
    expect(queryTerms('飞书插件配置')).not.toContain('飞书插件配置');
    expect(queryTerms('飞书插件配置').length).toBeGreaterThan(1);
  });

  it('splits long compounds into their words (长江大桥 → 长江, 大桥)', () => {
    expect(indexTerms('长江大桥很长')).toEqual(expect.arrayContaining(['长江', '大桥', '长江大桥']));
  });

  it('drops function words, so a question does not match on noise', () => {
    expect(queryTerms('我对什么过敏？')).toEqual(['过敏']);
    expect(queryTerms('what is the name of my cat')).toEqual(['name', 'cat']);
  });

  it('lower-cases, normalises full-width characters and stems plurals in English and code-switched text', () => {
    expect(queryTerms('ＴｙｐｅＳｃｒｉｐｔ Libraries')).toEqual(['typescript', 'library']);
    expect(matches('周五之前要部署 Kubernetes clusters', 'kubernetes cluster 部署')).toBe(true);
  });

  it('stems only plural -s forms', () => {
    expect(stem('databases')).toBe('database');
    expect(stem('boxes')).toBe('box');
    expect(stem('status')).toBe('status');
    expect(stem('class')).toBe('class');
  });

  it('repeats index terms as often as they occur (for BM25 term frequency)', () => {
    expect(indexTerms('cat cat dog').filter((t) => t === 'cat')).toHaveLength(2);
  });
});
