import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n/i18n';
import { ApprovalCard } from './approval-card';
import { MarkdownView } from './markdown-view';
import { ToolCard } from './tool-card';
import type { ApprovalStatus, Item } from './transcript';

interface Props {
  items: Item[];
  onApprovalDecided: (approvalId: string, status: ApprovalStatus) => void;
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

/** The conversation, newest at the bottom, kept scrolled there while it grows if the reader was there. */
export function TranscriptView({ items, onApprovalDecided }: Props) {
  const end = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = list.current;
    const nearBottom = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 120;
    if (nearBottom) end.current?.scrollIntoView({ block: 'end' });
  }, [items]);
  return (
    <div class="transcript" ref={list} role="log" aria-live="polite" aria-label={t('chat.transcriptLabel')} tabIndex={0}>
      {items.map((item) => (
        <ItemView key={item.key} item={item} onApprovalDecided={onApprovalDecided} />
      ))}
      <div ref={end} />
    </div>
  );
}
