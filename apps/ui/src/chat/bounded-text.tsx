import { useState } from 'preact/hooks';
import { t } from '../i18n/i18n';

/** Beyond this many characters a tool's output is cut, with a button to show the rest. */
export const OUTPUT_PREVIEW_CHARS = 2048;

const size = (text: string) => {
  const bytes = new TextEncoder().encode(text).length;
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
};

/** Preformatted text, collapsed past OUTPUT_PREVIEW_CHARS so a large output cannot swamp the page. */
export function BoundedText({ text, label }: { text: string; label: string }) {
  const [expanded, setExpanded] = useState(false);
  const long = text.length > OUTPUT_PREVIEW_CHARS;
  return (
    <div class="bounded">
      <pre aria-label={label} tabIndex={0} class="bounded-text">
        {long && !expanded ? `${text.slice(0, OUTPUT_PREVIEW_CHARS)}…` : text}
      </pre>
      {long && (
        <button type="button" class="link-button" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? t('tool.showLess') : t('tool.showAll', { size: size(text) })}
        </button>
      )}
    </div>
  );
}

/** A tool's input as people read it: the command of a shell call, else indented JSON. */
export function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  return JSON.stringify(input, null, 2) ?? '';
}
