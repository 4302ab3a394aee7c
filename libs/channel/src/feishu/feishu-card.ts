import type { Button } from '../channel.port';

/**
 * Every message the bot sends is an interactive card (card JSON 2.0) holding one markdown element:
 * cards render the Markdown models write (headings, lists, code blocks), are the only message kind
 * that can carry buttons, and are edited in place with `PATCH /im/v1/messages/:id` — text and post
 * messages can be edited only a few times each, too few for a streamed preview.
 */
export function feishuCard(markdown: string, buttons?: Button[][]): string {
  const elements: Record<string, unknown>[] = [{ tag: 'markdown', content: markdown }];
  for (const row of buttons ?? [])
    row.forEach((b, i) =>
      elements.push({
        tag: 'button',
        text: { tag: 'plain_text', content: b.text },
        type: i === 0 ? 'primary' : 'danger',
        // `value` comes back in the card.action.trigger callback as action.value.
        behaviors: [{ type: 'callback', value: { data: b.data } }],
      }),
    );
  // update_multi: one card for everyone in the chat, so a PATCH shows the edit to all of them.
  return JSON.stringify({ schema: '2.0', config: { update_multi: true }, body: { elements } });
}

/** The markdown of a card we built (tests and logs). */
export function feishuCardMarkdown(content: string): string {
  const card = JSON.parse(content) as { body?: { elements?: { tag: string; content?: string }[] } };
  return (card.body?.elements ?? [])
    .filter((e) => e.tag === 'markdown')
    .map((e) => e.content ?? '')
    .join('\n');
}
