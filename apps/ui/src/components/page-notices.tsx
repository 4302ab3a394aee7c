import type { ComponentChildren } from 'preact';
import { t } from '../i18n/i18n';

/** A page's failure, announced at once (role=alert); nothing when there is none. */
export function ErrorAlert({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** What the last action did, announced politely; always rendered so screen readers watch it from the start. */
export function StatusLine({ status }: { status: string | null }) {
  return (
    <p role="status" class="hint">
      {status ?? ''}
    </p>
  );
}

/**
 * A list's three states in one place: still loading (undefined), empty (says `empty`), or its content.
 * Pages render their rows in `children` only once there are some.
 */
export function Listing<T>({
  items,
  empty,
  children,
}: {
  items: T[] | undefined;
  empty: string;
  children: (items: T[]) => ComponentChildren;
}) {
  if (items === undefined) return <p class="hint">{t('app.loading')}</p>;
  if (items.length === 0) return <p class="empty">{empty}</p>;
  return <>{children(items)}</>;
}
