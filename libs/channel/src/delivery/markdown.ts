/**
 * Markdown (as models write it) → what each platform renders. Telegram gets its HTML subset (the
 * most forgiving of its parse modes: only & < > need escaping); Discord renders Markdown itself, so
 * it only loses mass mentions and gets headings it understands.
 */

export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

function inlineToHtml(text: string): string {
  // Inline code first: its content is literal.
  const parts = text.split(/(`[^`\n]+`)/g);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      let s = escapeHtml(part);
      s = s.replace(
        /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
        (_m, label: string, url: string) => `<a href="${url.replace(/"/g, '&quot;')}">${label}</a>`,
      );
      s = s.replace(/\*\*([^*\n]+?)\*\*/g, '<b>$1</b>');
      s = s.replace(/__([^_\n]+?)__/g, '<b>$1</b>');
      s = s.replace(/~~([^~\n]+?)~~/g, '<s>$1</s>');
      s = s.replace(/(^|[^\w*])\*([^*\s][^*\n]*?)\*(?!\w)/g, '$1<i>$2</i>');
      s = s.replace(/(^|[^\w])_([^_\s][^_\n]*?)_(?!\w)/g, '$1<i>$2</i>');
      return s;
    })
    .join('');
}

export function toTelegramHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/.exec(lines[i]);
    if (fence) {
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length && !new RegExp(`^\\s{0,3}${fence[1][0] === '`' ? '`' : '~'}{${fence[1].length},}\\s*$`).test(lines[j]); j++)
        body.push(lines[j]);
      const lang = fence[2] ? ` class="language-${escapeAttr(fence[2])}"` : '';
      out.push(`<pre><code${lang}>${escapeHtml(body.join('\n'))}</code></pre>`);
      i = j;
      continue;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(lines[i]);
    if (heading) {
      out.push(`<b>${inlineToHtml(heading[1])}</b>`);
      continue;
    }
    const quote = /^>\s?(.*)$/.exec(lines[i]);
    if (quote) {
      out.push(`<blockquote>${inlineToHtml(quote[1])}</blockquote>`);
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(lines[i]);
    if (bullet) {
      out.push(`${bullet[1]}• ${inlineToHtml(bullet[2])}`);
      continue;
    }
    out.push(inlineToHtml(lines[i]));
  }
  return out.join('\n');
}

/** Telegram HTML back to the text a user sees (tests, and the plain-text fallback). */
export function telegramHtmlToText(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

export function toDiscordMarkdown(markdown: string): string {
  // A model must never ping a whole server; a zero-width space defuses the mention.
  return outsideCodeFences(markdown, (line) => line.replace(/@(everyone|here)/g, '@\u200b$1').replace(/^#{4,6}\s+(.*)$/, '**$1**'));
}

/** Applies `change` to each line outside fenced code blocks (the fence lines included as code), line endings made `\n`. */
function outsideCodeFences(markdown: string, change: (line: string) => string): string {
  let inFence = false;
  return markdown
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => {
      if (/^\s{0,3}(`{3,}|~{3,})/.test(line)) inFence = !inFence;
      return inFence ? line : change(line);
    })
    .join('\n');
}

/**
 * Markdown for a Feishu/Lark card's markdown element, which renders it natively. Outside code, an
 * `<at …>` tag would notify people (`<at id=all></at>` pings the whole group): it is shown literally.
 */
export function toFeishuMarkdown(markdown: string): string {
  return outsideCodeFences(markdown, defuseFeishuTags);
}

/** Card markdown's own tags (`<at>`, `<font>`, `<text_tag>`, …) shown as text, never acted on. */
export const defuseFeishuTags = (s: string) => s.replace(/<(\/?[a-z_]+)/gi, '&lt;$1');
