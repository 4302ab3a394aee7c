import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';

/** Schemes a link in model output may use; anything else (javascript:, data:, vbscript:, file:) stays text. */
const SAFE_LINK = /^(https?:|mailto:)/i;

export function isSafeLink(href: string): boolean {
  // Browsers ignore tabs, newlines and leading control characters in a scheme ("java\tscript:"): strip them first.
  // eslint-disable-next-line no-control-regex
  return SAFE_LINK.test(href.replace(/[\u0000-\u0020]/g, ''));
}

/**
 * Model output is untrusted: `html: false` turns any HTML in it into text, and the link validator
 * refuses every scheme but http(s) and mailto. The tokens are then rendered to Preact elements by
 * markdown-view.tsx (never to an HTML string and innerHTML), so nothing here can become markup.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
markdown.validateLink = isSafeLink;

export function parseMarkdown(text: string): Token[] {
  return markdown.parse(text, {});
}

export type { Token };
