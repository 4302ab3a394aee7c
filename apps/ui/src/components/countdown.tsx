import { useEffect, useState } from 'preact/hooks';
import { language, t } from '../i18n/i18n';

/** "4:05" (minutes:seconds), or "1:02:03" past an hour. */
function clock(ms: number): string {
  const s = Math.ceil(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/**
 * Time left until `until`, ticking each second ("expires in 9:41"), then "expired": how long a pending
 * approval still waits before it is refused by timeout. The exact time is in the tooltip.
 */
export function Countdown({ until }: { until: string }) {
  const end = new Date(until).getTime();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (now >= end) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [end, now >= end]);
  const left = end - now;
  return (
    <time class={left <= 60_000 ? 'countdown soon' : 'countdown'} dateTime={until} title={new Date(until).toLocaleString(language())}>
      {left > 0 ? t('approvals.expiresIn', { time: clock(left) }) : t('approvals.expiredNow')}
    </time>
  );
}
