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
  readonly watchers: Set<(frame: LiveFrame) => void>;
}

/**
 * The answers being streamed by this replica's WebSocket chats, by session, so a page that reloads
 * in the middle of an answer (and `subscribe`s to its session) is shown what was already streamed
 * and the rest token by token, not only the stored answer once the turn ends. Finished steps are in
 * the database (the page reads them), so only the current step's text is kept. A turn running on
 * another replica has no entry here: its watchers see its session events and read the answer when
 * it is stored (docs/ui.md).
 */
@Injectable()
export class LiveAnswers {
  private readonly bySession = new Map<string, Running>();

  /** One chat's recorder: feed it the chat's events; `end` when the chat ends, however it ends. */
  recorder(): { see(event: AgentEvent): void; end(): void } {
    let sessionId: string | undefined;
    let running: Running | undefined;
    return {
      see: (e) => {
        if (e.type === 'started') {
          sessionId = e.sessionId;
          running = { text: '', watchers: this.bySession.get(sessionId)?.watchers ?? new Set() };
          this.bySession.set(sessionId, running);
          return;
        }
        if (!running) return;
        const frame = liveFrameOf(e);
        if (!frame) return;
        if (frame.type === 'token') {
          if (running.text.length < MAX_KEPT_CHARS) running.text += frame.text;
        } else running.text = '';
        for (const watcher of running.watchers) watcher(frame);
      },
      end: () => {
        if (sessionId && this.bySession.get(sessionId) === running) this.bySession.delete(sessionId);
      },
    };
  }

  /**
   * Follows the session's running answer, if this replica streams one: `watcher` gets the text so far
   * as one token frame at once, then every frame as it comes. Returns the unsubscribe.
   */
  watch(sessionId: string, watcher: (frame: LiveFrame) => void): () => void {
    const running = this.bySession.get(sessionId);
    if (!running) return () => undefined;
    running.watchers.add(watcher);
    if (running.text) watcher({ type: 'token', text: running.text });
    return () => running.watchers.delete(watcher);
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
