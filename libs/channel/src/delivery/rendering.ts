import type { ChannelAdapter } from '../channel.port';
import { defuseFeishuTags, escapeHtml, telegramHtmlToText, toDiscordMarkdown, toFeishuMarkdown, toTelegramHtml } from './markdown';
import { splitRendered } from './message-splitter';
import { escapeMrkdwn, toSlackMrkdwn } from '../slack/slack-mrkdwn';

export function renderFor(adapter: ChannelAdapter): (md: string) => string {
  switch (adapter.capabilities.format) {
    case 'telegram-html':
      return toTelegramHtml;
    case 'discord-markdown':
      return toDiscordMarkdown;
    case 'feishu-markdown':
      return toFeishuMarkdown;
    case 'slack-mrkdwn':
      return toSlackMrkdwn;
    case 'plain':
      return (s) => s;
  }
}

/** Plain text a platform shows as-is (previews of a still-growing reply: its Markdown may be half-open). */
export function literalFor(adapter: ChannelAdapter): (text: string) => string {
  if (adapter.capabilities.format === 'feishu-markdown') return defuseFeishuTags;
  if (adapter.capabilities.format === 'slack-mrkdwn') return escapeMrkdwn;
  return adapter.capabilities.format === 'telegram-html' ? escapeHtml : (s) => s;
}

export function plainFallback(adapter: ChannelAdapter, rendered: string, markdown: string): string {
  return adapter.capabilities.format === 'telegram-html' ? telegramHtmlToText(rendered) : markdown;
}

/** The reply as platform messages, each within the platform limit. */
export function replyParts(adapter: ChannelAdapter, markdown: string): { markdown: string; rendered: string }[] {
  const text = markdown.trim() ? markdown : '(empty reply)';
  return splitRendered(text, adapter.capabilities.maxMessageLength, renderFor(adapter));
}

/** What a message shows before its final text is edited in. */
export const PLACEHOLDER = '…';
