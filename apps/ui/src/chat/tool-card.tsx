import { t } from '../i18n/i18n';
import { BoundedText, inputText } from './bounded-text';

interface Props {
  name: string;
  input: unknown;
  output?: string;
  isError?: boolean;
}

/** One tool call: its full input, and its output once it ran (bounded). */
export function ToolCard({ name, input, output, isError }: Props) {
  const state = output === undefined ? t('tool.pending') : isError ? t('tool.failed') : '';
  return (
    <details class={`card tool-card${isError ? ' is-error' : ''}`} open={output === undefined || isError}>
      <summary>
        <span class="card-title">{t('tool.call', { name })}</span>
        {state && <span class="badge">{state}</span>}
      </summary>
      <h4 class="card-label">{t('tool.input')}</h4>
      <BoundedText text={inputText(input)} label={t('tool.input')} />
      {output !== undefined && (
        <>
          <h4 class="card-label">{t('tool.output')}</h4>
          <BoundedText text={output} label={t('tool.output')} />
        </>
      )}
    </details>
  );
}
