import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n';
import { ApprovalCard } from './approval-card';
import { MarkdownView } from './markdown-view';
import { ToolCard } from './tool-card';
import type { ApprovalStatus, Item } from './transcript';
import { useTranscriptWindow } from './transcript-window';

interface Props {
  items: Item[];
  onApprovalDecided: (approvalId: string, status: ApprovalStatus) => void;
  /** Loads the page before the first item; absent when the transcript starts here. */
  onLoadEarlier?: () => Promise<void>;
}

function ItemView({ item, onApprovalDecided }: { item: Item } & Pick<Props, 'onApprovalDecided'>) {
  switch (item.kind) {
    case 'user':
      return (
        <article class="message user">
          <h3 class="who">{t('chat.you')}</h3>
          <p class="plain">{item.text}</p>
        </article>
      );
    case 'assistant':
      return (
        <article class="message assistant" aria-busy={item.streaming}>
          <h3 class="who">{t('chat.assistant')}</h3>
          <MarkdownView text={item.text} />
          {item.streaming && <p class="hint">{t('chat.streaming')}</p>}
          {item.interrupted && <p class="hint">{t('chat.interrupted')}</p>}
        </article>
      );
    case 'tool':
      return <ToolCard name={item.name} input={item.input} output={item.output} isError={item.isError} />;
    case 'approval':
      return <ApprovalCard approval={item} onDecided={(status) => onApprovalDecided(item.approvalId, status)} />;
    case 'notice':
      return <p class={`notice ${item.tone}`}>{item.text}</p>;
  }
}

/**
 * The conversation, newest at the bottom, kept scrolled there while it grows if the reader was there.
 * A long one is paged: scrolling to the top (or the button there) loads the page before, and the
 * reader stays on the message they were reading while it is added above. Pages far from the reader
 * are windowed out (transcript-window.ts).
 */
export function TranscriptView({ items, onApprovalDecided, onLoadEarlier }: Props) {
  const end = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLDivElement>(null);
  const previous = useRef<{ first?: string; height: number }>({ height: 0 });
  const [loading, setLoading] = useState(false);
  const { blocks, rendered, heightOf, track } = useTranscriptWindow(items, list);

  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const before = previous.current;
    const first = items[0]?.key;
    const prepended = before.first !== undefined && first !== before.first && items.some((i) => i.key === before.first);
    if (prepended) {
      // Keep what the reader sees in place: move down by what was added above.
      const added = el.scrollHeight - before.height;
      if (el.scrollHeight > el.clientHeight) el.scrollTop += added;
      else window.scrollBy(0, added);
    } else if (el.scrollHeight - el.scrollTop - el.clientHeight < 120 || before.first === undefined) {
      end.current?.scrollIntoView({ block: 'end' });
    }
    previous.current = { first, height: el.scrollHeight };
  }, [items]);

  // The latest loader, so the observer below is not made anew on every render (a streaming answer renders per token).
  const loader = useRef(onLoadEarlier);
  loader.current = onLoadEarlier;
  const loadEarlier = () => {
    if (!loader.current || loading) return;
    setLoading(true);
    void loader.current().finally(() => setLoading(false));
  };
  const hasEarlier = onLoadEarlier !== undefined;
  // Reaching the top loads the page before (once the one in flight has come).
  useEffect(() => {
    if (!hasEarlier || loading || !top.current) return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && loadEarlier());
    seen.observe(top.current);
    return () => seen.disconnect();
  }, [hasEarlier, loading]);

  return (
    <div class="transcript" ref={list} role="log" aria-live="polite" aria-label={t('chat.transcriptLabel')} tabIndex={0}>
      {onLoadEarlier && (
        <div ref={top} class="transcript-earlier">
          <button type="button" disabled={loading} onClick={loadEarlier}>
            {loading ? t('chat.loadingEarlier') : t('chat.loadEarlier')}
          </button>
        </div>
      )}
      {blocks.map((block) =>
        rendered(block.id) ? (
          <div key={block.id} ref={track(block.id)} data-block={block.id} class="transcript-block">
            {block.items.map((item) => (
              <ItemView key={item.key} item={item} onApprovalDecided={onApprovalDecided} />
            ))}
          </div>
        ) : (
          <div
            key={block.id}
            ref={track(block.id)}
            data-block={block.id}
            class="transcript-block"
            style={{ height: `${heightOf(block.id)}px` }}
          />
        ),
      )}
      <div ref={end} />
    </div>
  );
}
