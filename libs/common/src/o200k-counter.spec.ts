import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { O200kCounter } from './o200k-counter';

/** The encoder this replaces; it throws on special-token text unless told to treat it as text. */
const reference = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

const repo = join(__dirname, '..', '..', '..');

/** Real English prose, Markdown and TypeScript from this repository, cut into paragraph-sized samples. */
function repositoryTexts(): string[] {
  const files = [
    join(repo, 'README.md'),
    ...readdirSync(join(repo, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(repo, 'docs', f)),
    join(__dirname, 'o200k-counter.ts'),
    join(__dirname, 'token-count.ts'),
  ];
  return files.flatMap((f) => readFileSync(f, 'utf8').split(/\n\n+/));
}

const CHINESE = [
  '你好，帮我查一下明天的天气',
  '长江大桥位于武汉，全长1670米。飞书的插件需要重新配置，请联系管理员。',
  '我对花生过敏；上个月的账单是 ¥1,234.56，请在周五之前支付。',
  '“引号”、《书名号》、【括号】……以及——破折号',
  '混合 English 和中文 in one sentence，包括 code: `const x = 42;` 以及 emoji 🎉👍🏽',
  '日本語のテキストも少し：東京は晴れです。한국어 문장도 있습니다.',
];

const EDGE = [
  ' ',
  '\n\n\n',
  'a',
  "don't won't I'LL they've WE'RE",
  '   leading and trailing   ',
  '1234567890 3.14159 -42 1e10',
  'https://example.com/path?q=1&r=2#frag',
  '\t\tindented\r\n\r\nwindows lines\r\n',
  'ÀÉÎÕÜ àéîõü ñ ß ø',
  'Ωμέγα Привет мир مرحبا שלום नमस्ते',
  '🧑‍💻👩‍👩‍👧‍👦🏳️‍🌈',
  'x'.repeat(500),
  '中'.repeat(300),
  'if (a &&= b) { return a?.b ?? c; } // ===> <|fake|>',
];

/** Deterministic mixes of the samples above with random code points from several scripts. */
function randomMixes(count: number): string[] {
  let seed = 23;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const ranges: [number, number][] = [
    [0x20, 0x7e],
    [0x4e00, 0x9fff],
    [0x3040, 0x30ff],
    [0x0400, 0x04ff],
    [0x1f300, 0x1f6ff],
    [0x09, 0x0d],
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    const len = next() % 200;
    for (let k = 0; k < len; k++) {
      const [lo, hi] = ranges[next() % ranges.length];
      s += String.fromCodePoint(lo + (next() % (hi - lo + 1)));
    }
    out.push(s);
  }
  return out;
}

describe('O200kCounter', () => {
  const counter = O200kCounter.load();

  it('counts exactly as gpt-tokenizer does on English, Chinese, code and random mixed text', () => {
    const corpus = [...repositoryTexts(), ...CHINESE, ...EDGE, ...randomMixes(500)];
    expect(corpus.length).toBeGreaterThan(600);
    const differing = corpus.filter((t) => counter.count(t) !== reference(t));
    expect(differing).toEqual([]);
    // The whole corpus at once too, so pieces spanning sample boundaries are covered.
    const all = corpus.join('\n\n');
    expect(counter.count(all)).toBe(reference(all));
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    expect(counter.count('<|endoftext|>')).toBeGreaterThan(1);
    expect(counter.count('say <|endoftext|> now')).toBe(reference('say <|endoftext|> now'));
  });
});
