import type * as JiebaModule from '@node-rs/jieba';
import type * as JiebaDict from '@node-rs/jieba/dict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '@nestclaw/common';

/**
 * The one tokenizer of the memory index: the index is built from `indexTerms` and every keyword
 * query goes through `queryTerms`, so both sides always split text the same way.
 *
 * Chinese/Japanese runs get two kinds of term: jieba's search-mode words (长江大桥 → 长江, 大桥,
 * 长江大桥) and every character bigram of the run. Bigrams make any ≥2-character word findable
 * even when jieba does not know it (飞书 is cut into 飞/书) or cuts the query and the fact
 * differently; a bigram that is also a word counts twice, so whole-word matches rank higher. A query becomes a bag of OR-ed terms, never one
 * exact phrase. Latin text is lower-cased, NFKC-normalised, split on non-letters, lightly stemmed
 * (plural -s) and stripped of a few stop words.
 */
export const TOKENIZER_VERSION = 'jieba2-search+cjk-bigram+latin-s1';

let jieba: JiebaModule.Jieba | undefined;
/**
 * Loaded with the first Chinese or Japanese text: ~36 MB of native memory built. The dictionary is read
 * here and dropped once built: `@node-rs/jieba/dict` also reads the 5.8 MB TF-IDF table, and its module,
 * cached by `require`, kept both buffers (10.8 MB) for the life of the process (issue 23). The same file,
 * so the same cuts; the module is the fallback when the package sits elsewhere.
 */
function segmenter(): JiebaModule.Jieba {
  /* eslint-disable @typescript-eslint/no-require-imports */
  jieba ??= (require('@node-rs/jieba') as typeof JiebaModule).Jieba.withDict(dictionary());
  return jieba;
}

function dictionary(): Uint8Array {
  const file = join(packageRoot(), 'node_modules', '@node-rs', 'jieba', 'dict.txt');
  return existsSync(file) ? readFileSync(file) : (require('@node-rs/jieba/dict') as typeof JiebaDict).dict;
  /* eslint-enable @typescript-eslint/no-require-imports */
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/u;
const PIECES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+|[\p{L}\p{N}_]+/gu;
const MAX_TERM_LENGTH = 40;

/** Frequent function words that match nearly everything and carry no meaning on their own. */
const CJK_STOP = new Set([
  '的',
  '了',
  '是',
  '在',
  '和',
  '与',
  '也',
  '就',
  '都',
  '而',
  '及',
  '或',
  '被',
  '把',
  '之',
  '吗',
  '呢',
  '吧',
  '啊',
  '呀',
  '着',
  '过',
  '个',
  '这',
  '那',
  '有',
  '我',
  '你',
  '他',
  '她',
  '它',
  '们',
  '什么',
  '怎么',
  '哪',
  '要',
  '会',
  '能',
  '对',
  '给',
  '让',
  '从',
  '到',
  '上',
  '下',
  '中',
  '里',
  '么',
  '一个',
  '没有',
  '还',
  '很',
  '又',
  '再',
  '吗',
  '哪些',
  '哪个',
  '如何',
  '为什么',
  '是否',
  '已经',
  '可以',
]);
const LATIN_STOP = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'at',
  'for',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'it',
  'its',
  'this',
  'that',
  'these',
  'those',
  'with',
  'as',
  'by',
  'from',
  'do',
  'does',
  'did',
  'what',
  'which',
  'who',
  'whom',
  'how',
  'when',
  'where',
  'why',
  'i',
  'me',
  'my',
  'we',
  'our',
  'you',
  'your',
  'he',
  'she',
  'they',
  'them',
  'their',
  'his',
  'her',
  'about',
  'any',
  'can',
  'could',
  'should',
  'would',
  'will',
  'there',
  'so',
  'if',
  'but',
  'not',
  'no',
  'yes',
  'have',
  'has',
  'had',
  'tell',
  'please',
  'know',
  'again',
]);

/** Plural and third-person -s only: cheap, predictable, and never merges unrelated words. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is|os)$/.test(word)) return word.slice(0, -1);
  return word;
}

function cjkTerms(run: string, out: string[]): void {
  const seg = segmenter();
  for (const w of seg.cutForSearch(run, true)) if (!CJK_STOP.has(w) && w.length <= MAX_TERM_LENGTH) out.push(w);
  // Bigrams never span a function word (我对什么过敏 → 过敏 only), so questions do not match on noise.
  let span = '';
  const flush = () => {
    for (let i = 0; i + 1 < span.length; i++) out.push(span.slice(i, i + 2));
    span = '';
  };
  for (const w of seg.cut(run, true)) {
    if (CJK_STOP.has(w)) flush();
    else span += w;
  }
  flush();
}

function terms(text: string): string[] {
  const out: string[] = [];
  const normalized = text.normalize('NFKC').toLowerCase();
  for (const match of normalized.matchAll(PIECES)) {
    const piece = match[0];
    if (CJK_RUN.test(piece[0])) {
      cjkTerms(piece, out);
    } else {
      if (piece.length > MAX_TERM_LENGTH || LATIN_STOP.has(piece)) continue;
      out.push(stem(piece));
    }
  }
  return out;
}

/** Terms of an indexed text, repeated as often as they occur (BM25 counts term frequency). */
export function indexTerms(text: string): string[] {
  return terms(text);
}

/** Distinct terms of a query, in first-seen order: OR-ed by the keyword search. */
export function queryTerms(text: string): string[] {
  return [...new Set(terms(text))];
}
