import { api } from '../api';
import type { StoredMessage } from './transcript';

/** Messages per page: what a long conversation opens with, and each step back in it. */
export const TRANSCRIPT_PAGE = 50;

/** One page of a stored transcript, and where the page before it ends (null: this is the start). */
export interface TranscriptPage {
  messages: StoredMessage[];
  earlierBefore: number | null;
}

/**
 * The newest page of a session (`before` = 'end'), or the page just before a seq. A full page starts at
 * its first user message: the messages before it (the end of an earlier turn, whose tool results need
 * their calls) come with the earlier page, so each page shows whole turns.
 */
export async function transcriptPage(sessionId: string, before: number | 'end'): Promise<TranscriptPage> {
  const { messages } = await api<{ messages: StoredMessage[] }>(
    `/v1/sessions/${encodeURIComponent(sessionId)}/messages?before=${before}&limit=${TRANSCRIPT_PAGE}`,
  );
  if (messages.length < TRANSCRIPT_PAGE) return { messages, earlierBefore: null };
  const firstUser = messages.findIndex((m) => m.role === 'user');
  // A turn longer than a page is shown from wherever the page starts.
  const kept = firstUser > 0 ? messages.slice(firstUser) : messages;
  return { messages: kept, earlierBefore: kept[0].seq };
}
