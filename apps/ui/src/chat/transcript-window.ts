import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Item } from './transcript';

/** A run of the transcript loaded together (the newest page, then each earlier page), named by its first item's key. */
export interface Block {
  id: string;
  items: Item[];
}

/**
 * Splits the transcript where its pages begin. `starts` remembers those beginnings across renders: a
 * page added above the first item starts a block of its own; a transcript replaced as a whole (another
 * session, a reload after a turn) starts afresh as one block.
 */
export function blocksOf(items: Item[], starts: string[]): { blocks: Block[]; starts: string[] } {
  if (items.length === 0) return { blocks: [], starts: [] };
  const index = new Map(items.map((item, i) => [item.key, i]));
  const first = items[0].key;
  let kept = starts.filter((key) => index.has(key));
  if (kept.length === 0) kept = [first];
  else if (kept[0] !== first) kept = [first, ...kept];
  const blocks = kept.map((id, n) => ({ id, items: items.slice(index.get(id), n + 1 < kept.length ? index.get(kept[n + 1]) : undefined) }));
  return { blocks, starts: kept };
}

/** How far beyond the visible part of the transcript blocks stay rendered, in heights of that part. */
const RENDERED_AROUND = '150%';

/**
 * Windowing of a long transcript: a block far from the view is replaced by an empty box of the
 * height it had when rendered, so ten thousand messages cost the page only the few blocks around
 * the reader, and nothing moves when a block is swapped. A block is rendered until it has been
 * measured; the newest is always rendered (it is where answers stream).
 */
export function useTranscriptWindow(items: Item[], list: { current: HTMLDivElement | null }) {
  const starts = useRef<string[]>([]);
  const heights = useRef(new Map<string, number>());
  const elements = useRef(new Map<string, HTMLDivElement>());
  const [near, setNear] = useState<ReadonlySet<string>>(new Set());
  const { blocks, starts: kept } = blocksOf(items, starts.current);
  starts.current = kept;
  const newest = blocks[blocks.length - 1]?.id;
  /** Blocks the observer has not reported on yet: kept rendered until it has (no flash of an empty box). */
  const unreported = useRef(new Set<string>());
  const rendered = (id: string) => id === newest || near.has(id) || !heights.current.has(id) || unreported.current.has(id);

  // Each rendered block's height, for the box that stands in for it later.
  useLayoutEffect(() => {
    for (const [id, el] of elements.current) if (rendered(id)) heights.current.set(id, el.offsetHeight);
  });

  const observer = useRef<IntersectionObserver>();
  useEffect(() => {
    const el = list.current;
    if (!el) return;
    // The transcript scrolls inside itself on a desktop and with the page on a phone (chat.css).
    const root = getComputedStyle(el).maxHeight === 'none' ? null : el;
    const seen = new IntersectionObserver(
      (entries) =>
        setNear((now) => {
          const next = new Set(now);
          for (const e of entries) {
            const id = (e.target as HTMLElement).dataset.block!;
            unreported.current.delete(id);
            if (e.isIntersecting) next.add(id);
            else next.delete(id);
          }
          return next.size === now.size && [...next].every((id) => now.has(id)) ? now : next;
        }),
      { root, rootMargin: `${RENDERED_AROUND} 0px` },
    );
    observer.current = seen;
    for (const block of elements.current.values()) seen.observe(block);
    return () => seen.disconnect();
  }, []);

  /** The ref callback of a block's element (one per block, so a render does not re-observe it): observed while it exists. */
  const trackers = useRef(new Map<string, (el: HTMLDivElement | null) => void>());
  const track = (id: string) => {
    let tracker = trackers.current.get(id);
    if (!tracker) {
      tracker = (el) => {
        const known = elements.current.get(id);
        if (known === el) return;
        if (known) observer.current?.unobserve(known);
        if (el) {
          if (!known) unreported.current.add(id);
          elements.current.set(id, el);
          observer.current?.observe(el);
        } else {
          elements.current.delete(id);
          trackers.current.delete(id);
          unreported.current.delete(id);
        }
      };
      trackers.current.set(id, tracker);
    }
    return tracker;
  };

  return { blocks, rendered, heightOf: (id: string) => heights.current.get(id) ?? 0, track };
}
