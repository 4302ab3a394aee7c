import type { ComponentChildren, JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { isSafeLink, parseMarkdown, Token } from './markdown';

/** Block and inline tags markdown-it emits that we render; any other tag becomes its children only. */
const TAGS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'hr',
  'br',
  'pre',
  'code',
  'em',
  'strong',
  's',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
]);

interface Node {
  tag: string;
  attrs: Record<string, string>;
  children: ComponentChildren[];
}

/** Only the attributes that carry no script: a validated href, a list's start number, a code language class. */
function safeAttrs(token: Token): Record<string, string> {
  const out: Record<string, string> = {};
  if (token.tag === 'a') {
    const href = String(token.attrGet('href') ?? '');
    if (isSafeLink(href)) Object.assign(out, { href, rel: 'noopener noreferrer nofollow', target: '_blank' });
  }
  const start = String(token.attrGet('start') ?? '');
  if (token.tag === 'ol' && start && /^\d{1,9}$/.test(start)) out.start = start;
  return out;
}

function element(node: Node, key: number): JSX.Element {
  const Tag = (TAGS.has(node.tag) ? node.tag : 'span') as keyof JSX.IntrinsicElements;
  return (
    <Tag key={key} {...node.attrs}>
      {node.children}
    </Tag>
  );
}

/** markdown-it's flat token stream to a Preact tree: text is always a text node, never markup. */
function render(tokens: Token[]): ComponentChildren[] {
  const root: Node = { tag: 'div', attrs: {}, children: [] };
  const stack: Node[] = [root];
  const top = () => stack[stack.length - 1];
  tokens.forEach((token, i) => {
    if (token.nesting === 1) {
      // A paragraph markdown-it hides (tight lists) adds no element.
      if (token.hidden) return;
      stack.push({ tag: token.tag, attrs: safeAttrs(token), children: [] });
    } else if (token.nesting === -1) {
      if (token.hidden) return;
      const node = stack.pop()!;
      top().children.push(element(node, i));
    } else if (token.type === 'inline') {
      top().children.push(...render(token.children ?? []));
    } else if (token.type === 'text') {
      top().children.push(token.content);
    } else if (token.type === 'code_inline') {
      top().children.push(<code key={i}>{token.content}</code>);
    } else if (token.type === 'fence' || token.type === 'code_block') {
      const lang = /^[\w+-]{1,30}/.exec(token.info.trim())?.[0];
      top().children.push(
        <pre key={i}>
          <code class={lang ? `language-${lang}` : undefined}>{token.content}</code>
        </pre>,
      );
    } else if (token.type === 'softbreak') {
      top().children.push('\n');
    } else if (token.type === 'hardbreak') {
      top().children.push(<br key={i} />);
    } else if (token.type === 'hr') {
      top().children.push(<hr key={i} />);
    } else if (token.type === 'image') {
      // No remote images from model output (tracking pixels): the alt text stands in.
      top().children.push(token.content);
    } else {
      // html_inline / html_block cannot occur with html: false; anything unknown is shown as its text.
      top().children.push(token.content);
    }
  });
  // Unbalanced input cannot leave nodes open: close whatever is left.
  while (stack.length > 1) {
    const node = stack.pop()!;
    top().children.push(element(node, stack.length));
  }
  return root.children;
}

export function MarkdownView({ text }: { text: string }) {
  const children = useMemo(() => render(parseMarkdown(text)), [text]);
  return <div class="markdown">{children}</div>;
}
