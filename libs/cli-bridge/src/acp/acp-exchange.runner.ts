import { Injectable } from '@nestjs/common';
import type { PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import type { CliConfig } from '@nestclaw/config';
import type { ExchangeResult, ExchangeScope } from '../exchange/exchange.types';
import { AcpPermissions } from './acp-permissions';
import { AcpSessions } from './acp-sessions';

/** How often the watchdog looks at the time since the agent's last update (at most; less for a short watchdog). */
const WATCH_MS = 1_000;

/**
 * One message to an ACP session and its answer: the text is sent as a `session/prompt`, the answer is
 * the `agent_message_chunk` text the agent streamed until the prompt returned. A tool call it reports is
 * the chat's progress line; a permission it asks for is an approval, and the agent waits for it (the
 * watchdog does not count that time). No update for `watchdog` ends the wait with a report; the
 * process exiting ends it at once; the chat giving up sends `session/cancel`.
 */
@Injectable()
export class AcpExchangeRunner {
  constructor(
    private readonly sessions: AcpSessions,
    private readonly permissions: AcpPermissions,
  ) {}

  run(session: string, cfg: CliConfig, text: string, scope: ExchangeScope): Promise<ExchangeResult> {
    const process = this.sessions.get(session);
    if (!process?.alive) return Promise.resolve({ kind: 'dead' });
    const chunks: string[] = [];
    let lastUpdate = Date.now();
    let deciding = 0;
    let progress: string | undefined;
    return new Promise<ExchangeResult>((resolve) => {
      let done = false;
      const finish = (r: ExchangeResult) => {
        if (done) return;
        done = true;
        clearInterval(watchdog);
        scope.signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const watchdog = setInterval(
        () => {
          const quiet = Date.now() - lastUpdate;
          if (!deciding && quiet >= cfg.watchdog) finish({ kind: 'silent', silentMs: quiet });
        },
        Math.min(WATCH_MS, Math.max(50, cfg.watchdog / 4)),
      );
      const onAbort = () => {
        process.cancel();
        finish({ kind: 'answer', text: 'Stopped waiting for the CLI.' });
      };
      if (scope.signal?.aborted) return onAbort();
      scope.signal?.addEventListener('abort', onAbort, { once: true });
      void process.exited.then(() => finish({ kind: 'dead' }));
      process
        .prompt(text, {
          update: (u) => {
            lastUpdate = Date.now();
            if (done) return;
            if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') chunks.push(u.content.text);
            const doing = progressOf(u);
            if (doing && doing !== progress) scope.onProgress?.((progress = doing));
          },
          permission: async (request, signal) => {
            deciding++;
            try {
              return await this.permissions.ask(request, scope, signal);
            } finally {
              deciding--;
              lastUpdate = Date.now();
            }
          },
        })
        .then(
          (response) => finish({ kind: 'answer', text: answerOf(scope.cli, chunks.join(''), response) }),
          (e: Error) =>
            // A request cut off by the process's death is that death; any other error is the agent's answer.
            setTimeout(
              () => finish(process.alive ? { kind: 'answer', text: `⚠ ${scope.cli} failed: ${e.message}` } : { kind: 'dead' }),
              100,
            ),
        );
    });
  }
}

/**
 * The chat's progress line for a tool call the agent reports starting or running: `🔧 <its title>`
 * (Gemini CLI 0.61 reports a call only as updates, with no `tool_call` first).
 */
function progressOf(u: SessionUpdate): string | undefined {
  const starting =
    u.sessionUpdate === 'tool_call' || (u.sessionUpdate === 'tool_call_update' && u.status !== 'completed' && u.status !== 'failed');
  return starting && u.title ? `🔧 ${u.title}` : undefined;
}

/** The streamed text, or what the turn ended with when the agent said nothing (a refusal, a cancelled turn). */
function answerOf(cli: string, text: string, response: PromptResponse): string {
  if (text.trim()) return text;
  return response.stopReason === 'end_turn'
    ? `${cli} finished without a text answer.`
    : `${cli} ended its turn without a text answer (${response.stopReason.replaceAll('_', ' ')}).`;
}
