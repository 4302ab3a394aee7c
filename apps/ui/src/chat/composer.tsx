import { useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n';

interface Props {
  running: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}

/**
 * The message box. Enter sends and Shift+Enter breaks the line, except while an input method is
 * composing: with Chinese (pinyin) input, Enter confirms the candidate and must not send. Browsers
 * say so with `isComposing`, but Safari ends the composition before its Enter keydown, so we also
 * track compositionstart…compositionend ourselves and honour keyCode 229 ("IME is handling it").
 */
export function Composer({ running, onSend, onStop }: Props) {
  const [text, setText] = useState('');
  const composing = useRef(false);
  const send = () => {
    const message = text.trim();
    if (!message || running) return;
    onSend(message);
    setText('');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey) return;
    if (e.isComposing || composing.current || e.keyCode === 229) return;
    e.preventDefault();
    send();
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label for="composer-input" class="visually-hidden">
        {t('chat.composer')}
      </label>
      <textarea
        id="composer-input"
        rows={3}
        value={text}
        aria-describedby="composer-hint"
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        onCompositionStart={() => (composing.current = true)}
        onCompositionEnd={() => (composing.current = false)}
      />
      <p id="composer-hint" class="hint">
        {t('chat.composerHint')}
      </p>
      <div class="actions">
        {running ? (
          <button type="button" class="danger" onClick={onStop}>
            {t('chat.stop')}
          </button>
        ) : (
          <button type="submit" class="primary" disabled={!text.trim()}>
            {t('chat.send')}
          </button>
        )}
      </div>
    </form>
  );
}
