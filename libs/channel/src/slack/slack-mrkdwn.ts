/**
 * Markdown (as models write it) → Slack mrkdwn. Slack has its own dialect: *bold*, _italic_,
 * ~strike~, <url|label>, ``` fences without a language; and `&`, `<`, `>` must be escaped everywhere
 * (also inside code), which also defuses `<!channel>` / `<!here>` / `<@U…>` written by a model.
 */

export const escapeMrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const BOLD = '\uE000';

function inline(text: string): string {
  // Inline code first: its content is literal (escaped, never styled).
  return text
    .split(/(`[^`\n]+`)/g)
    .map((part, i) => {
      if (i % 2 === 1) return escapeMrkdwn(part);
      let s = escapeMrkdwn(part);
      s = s.replace(
        /\[([^\]\n]+)\]\((https?:\/\/[^\s)|]+)\)/g,
        (_m, label: string, url: string) => `<${url}|${label.replace(/\|/g, '¦')}>`,
      );
      s = s.replace(/\*\*([^*\n]+?)\*\*/g, `${BOLD}$1${BOLD}`);
      s = s.replace(/__([^_\n]+?)__/g, `${BOLD}$1${BOLD}`);
      s = s.replace(/(^|[^\w*])\*([^*\s][^*\n]*?)\*(?!\w)/g, '$1_$2_');
      s = s.replace(/~~([^~\n]+?)~~/g, '~$1~');
      return s.replace(new RegExp(BOLD, 'g'), '*');
    })
    .join('');
}

export function toSlackMrkdwn(markdown: string): string {
  const lines = markdown
    .replace(/\r\n?/g, '\n')
    .replace(/\uE000/g, '')
    .split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    const marker = /^\s{0,3}(`{3,}|~{3,})\s*[\w+#.-]*\s*$/.exec(line);
    if (fence) {
      if (marker && marker[1][0] === fence[0] && marker[1].length >= fence.length) {
        out.push('```');
        fence = undefined;
      } else out.push(escapeMrkdwn(line));
      continue;
    }
    if (marker) {
      fence = marker[1];
      out.push('```');
      continue;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      out.push(`*${inline(heading[1]).replace(/\*/g, '')}*`);
      continue;
    }
    const quote = /^>\s?(.*)$/.exec(line);
    if (quote) {
      out.push(`> ${inline(quote[1])}`);
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      out.push(`${bullet[1]}• ${inline(bullet[2])}`);
      continue;
    }
    out.push(inline(line));
  }
  if (fence) out.push('```');
  return out.join('\n');
}

/** Slack mrkdwn back to the text a user reads (tests, and the plain fallback). */
export function slackMrkdwnToText(mrkdwn: string): string {
  return mrkdwn
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
