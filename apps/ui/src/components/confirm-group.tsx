import { useEffect, useRef } from 'preact/hooks';

/**
 * An inline "are you sure" for a destructive action: it takes the keyboard focus when it opens
 * (Enter confirms), and Escape or Cancel closes it without acting.
 */
export function ConfirmGroup(props: {
  label: string;
  question: string;
  confirm: string;
  cancel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <div class="actions confirm-group" role="group" aria-label={props.label} onKeyDown={(e) => e.key === 'Escape' && props.onCancel()}>
      <span>{props.question}</span>
      <button type="button" class="danger" ref={button} onClick={props.onConfirm}>
        {props.confirm}
      </button>
      <button type="button" onClick={props.onCancel}>
        {props.cancel}
      </button>
    </div>
  );
}
