import { Injectable } from '@nestjs/common';
import type { AgentEvent } from '@nestclaw/agent';

/** The frames a watcher is sent for a running answer: the chat's own frames, under the watcher's id. */
export type LiveFrame =
  | { type: 'token'; text: string }
  | { type: 'tool_call'; callId: string; name: string; input: unknown }
  | { type: 'tool_result'; callId: string; name: string; output: string; isError: boolean };

/** Past this, a running step's text is no longer kept for late watchers (they get the rest live, and all of it once stored). */
const MAX_KEPT_CHARS = 1_000_000;

interface Running {
  /** The text of the step being streamed now: what a page re-attaching has not read from the database yet. */
  text: string;
}

type Watcher = (frame: LiveFrame) => void;

/**
 * The answers being streamed by this replica's WebSocket chats, by session, so a page that reloads
 * in the middle of an answer (and `subscribe`s to its session) is shown what was already streamed
 * and the rest token by token, not only the stored answer once the turn ends. Only the current
 * step's text is kept: a finished step is in the database, which the page reads. A tool call in
 * flight at the reload is not replayed (its card shows when its step is stored); the frames after
 * it are. Watchers are kept by session, apart from the running answer, so one that subscribes
 * before the turn starts streaming (compaction can take seconds) or stays for the next turn gets
 * it too. A turn running on another replica has no entry here: its watchers see its session events
 * and read the answer when it is stored (docs/ui.md).
 */
@Injectable()
export class LiveAnswers {
  private readonly running = new Map<string, Running>();
  private readonly watchers = new Map<string, Set<Watcher>>();

  /** One chat's recorder: feed it the chat's events; `end` when the chat ends, however it ends. */
  recorder(): { see(event: AgentEvent): void; end(): void } {
    let sessionId: string | undefined;
    let answer: Running | undefined;
    return {
      see: (e) => {
        if (e.type === 'started') {
          sessionId = e.sessionId;
          answer = { text: '' };
          this.running.set(sessionId, answer);
          return;
        }
        if (!answer || !sessionId) return;
        const frame = liveFrameOf(e);
        if (!frame) return;
        if (frame.type === 'token') {
          if (answer.text.length < MAX_KEPT_CHARS) answer.text += frame.text;
        } else answer.text = '';
        for (const watcher of this.watchers.get(sessionId) ?? []) watcher(frame);
      },
      end: () => {
        if (sessionId && this.running.get(sessionId) === answer) this.running.delete(sessionId);
      },
    };
  }

  /**
   * Follows the session's answers on this replica: `watcher` gets the text streamed so far (if a turn
   * is streaming) as one token frame at once, then every frame as it comes, this turn's and later
   * ones'. Returns the unsubscribe.
   */
  watch(sessionId: string, watcher: Watcher): () => void {
    let set = this.watchers.get(sessionId);
    if (!set) this.watchers.set(sessionId, (set = new Set()));
    set.add(watcher);
    const text = this.running.get(sessionId)?.text;
    if (text) watcher({ type: 'token', text });
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(sessionId) === set) this.watchers.delete(sessionId);
    };
  }
}

function liveFrameOf(e: AgentEvent): LiveFrame | undefined {
  switch (e.type) {
    case 'token':
      return { type: 'token', text: e.text };
    case 'tool_call':
      return { type: 'tool_call', callId: e.id, name: e.name, input: e.input };
    case 'tool_result':
      return { type: 'tool_result', callId: e.id, name: e.name, output: e.output, isError: e.isError };
    default:
      return undefined;
  }
}
