/**
 * Splits a Markdown reply into messages no longer than a platform limit, preferring paragraph
 * boundaries, never cutting inside a code fence without closing and reopening it, and never
 * splitting a UTF-16 surrogate pair. Length is counted in UTF-16 code units (what Telegram counts;
 * for Discord, whose limit counts characters, this is conservative).
 */

interface Block {
  text: string;
  /** The fence's opening line (e.g. "```ts") when the block is a fenced code block. */
  fence?: string;
}

const FENCE = /^(\s{0,3})(`{3,}|~{3,})(.*)$/;

/** Paragraphs (separated by blank lines) and fenced code blocks, in order. */
export function toBlocks(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ text: para.join('\n') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (open) {
      flush();
      const marker = open[2];
      const body: string[] = [lines[i]];
      let j = i + 1;
      for (; j < lines.length; j++) {
        body.push(lines[j]);
        const close = FENCE.exec(lines[j]);
        if (close && close[2][0] === marker[0] && close[2].length >= marker.length && !close[3].trim()) break;
      }
      // An unclosed fence runs to the end of the text; close it so each message renders.
      if (j >= lines.length) body.push(marker);
      blocks.push({ text: body.join('\n'), fence: lines[i].trim() });
      i = j;
    } else if (lines[i].trim() === '') {
      flush();
    } else {
      para.push(lines[i]);
    }
  }
  flush();
  return blocks;
}

/** Cuts at `max` code units or before, stepping back over a high surrogate so a pair stays whole. */
export function safeCut(s: string, max: number): number {
  if (s.length <= max) return s.length;
  let cut = max;
  const c = s.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return Math.max(cut, 1);
}

/** Splits prose: at line breaks, then sentence ends (also CJK 。！？), then spaces, then anywhere safe. */
function splitProse(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, safeCut(rest, limit));
    let cut = window.lastIndexOf('\n');
    if (cut < limit / 3) {
      const sentence = Math.max(...['。', '！', '？', '. ', '! ', '? ', '；'].map((p) => window.lastIndexOf(p)));
      if (sentence >= limit / 3) cut = sentence + 1;
      else {
        const space = window.lastIndexOf(' ');
        cut = space >= limit / 3 ? space : window.length;
      }
    }
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^[ \n]+/, '');
  }
  if (rest) out.push(rest);
  return out.filter((p) => p.length > 0);
}

/** Splits a fenced block into several fenced blocks, each closed and reopened with the same fence. */
function splitFence(block: Block, limit: number): string[] {
  const lines = block.text.split('\n');
  const open = lines[0];
  const close = lines[lines.length - 1];
  const inner = lines.slice(1, -1);
  const overhead = open.length + close.length + 2;
  const room = Math.max(limit - overhead, 1);
  const pieces: string[] = [];
  let cur: string[] = [];
  let curLen = 0;
  const push = () => {
    if (cur.length) pieces.push(`${open}\n${cur.join('\n')}\n${close}`);
    cur = [];
    curLen = 0;
  };
  for (let line of inner) {
    while (line.length > room) {
      push();
      const cut = safeCut(line, room);
      pieces.push(`${open}\n${line.slice(0, cut)}\n${close}`);
      line = line.slice(cut);
    }
    const add = (cur.length ? 1 : 0) + line.length;
    if (curLen + add > room) push();
    cur.push(line);
    curLen += (cur.length > 1 ? 1 : 0) + line.length;
  }
  push();
  return pieces;
}

export function splitMessage(text: string, limit: number): string[] {
  if (limit < 16) throw new Error('limit too small');
  if (text.length <= limit) return text.length ? [text] : [];
  const pieces: string[] = [];
  for (const block of toBlocks(text)) {
    if (block.text.length <= limit) pieces.push(block.text);
    else if (block.fence) pieces.push(...splitFence(block, limit));
    else pieces.push(...splitProse(block.text, limit));
  }
  // Pack pieces back together greedily, paragraph-separated.
  const out: string[] = [];
  let cur = '';
  for (const p of pieces) {
    if (!cur) cur = p;
    else if (cur.length + 2 + p.length <= limit) cur += `\n\n${p}`;
    else {
      out.push(cur);
      cur = p;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Splits, renders each part for the platform, and re-splits any part whose rendering (escapes,
 * tags) outgrows the limit.
 */
export function splitRendered(text: string, limit: number, render: (md: string) => string): { markdown: string; rendered: string }[] {
  const out: { markdown: string; rendered: string }[] = [];
  const visit = (md: string, budget: number, depth: number) => {
    for (const part of splitMessage(md, budget)) {
      const rendered = render(part);
      if (rendered.length <= limit || depth > 6 || budget <= 64) out.push({ markdown: part, rendered });
      else visit(part, Math.max(64, Math.floor((budget * limit) / rendered.length) - 16), depth + 1);
    }
  };
  visit(text, limit, 0);
  return out;
}
