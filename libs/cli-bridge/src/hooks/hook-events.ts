/**
 * What the CLIs' hooks report, read from one line of a session's events file: each CLI names its
 * events its own way, and this is the one place that knows how. Pure functions, so each CLI's shape
 * is a unit test.
 *
 * - Claude Code (`--settings` hooks): `Stop` with `last_assistant_message`; `PreToolUse` with
 *   `tool_name` and `tool_input`.
 * - Gemini CLI (settings hooks): `AfterAgent` with `prompt_response`; `BeforeTool` with `tool_name`
 *   and `tool_input`.
 * - Codex (its `notify` program, the event as the last argument): `agent-turn-complete` with
 *   `last-assistant-message`.
 */

/** What a CLI's hook said about the end of its answer: that it finished, and (when it says) the text. */
export interface CliStopped {
  text?: string;
}

type HookEvent = Record<string, unknown>;

const PROGRESS_MAX = 200;

/** The CLI finished its answer: the answer as the CLI wrote it, when the event carries one. */
export function stopOf(event: HookEvent): CliStopped | undefined {
  const said = finalText(event);
  if (said === undefined) return undefined;
  const text = typeof said === 'string' ? said.trim() : '';
  return text ? { text } : {};
}

function finalText(event: HookEvent): unknown {
  if (event.hook_event_name === 'Stop') return event.last_assistant_message ?? '';
  if (event.hook_event_name === 'AfterAgent') return event.prompt_response ?? '';
  if (event.type === 'agent-turn-complete') return event['last-assistant-message'] ?? '';
  return undefined;
}

/** A tool the CLI is about to run, as one line for the chat's preview (`🔧 Bash: npm test`). */
export function progressOf(event: HookEvent): string | undefined {
  if (event.hook_event_name !== 'PreToolUse' && event.hook_event_name !== 'BeforeTool') return undefined;
  const tool = typeof event.tool_name === 'string' ? event.tool_name : undefined;
  if (!tool) return undefined;
  const what = subjectOf(event.tool_input);
  return oneLine(what ? `🔧 ${tool}: ${what}` : `🔧 ${tool}`);
}

/** The part of a tool's input a person recognises it by: the command, the file, the pattern, the address. */
function subjectOf(input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const i = input as Record<string, unknown>;
  for (const key of ['command', 'file_path', 'absolute_path', 'path', 'pattern', 'url', 'query', 'description']) {
    if (typeof i[key] === 'string' && i[key]) return i[key];
  }
  return undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PROGRESS_MAX ? `${flat.slice(0, PROGRESS_MAX - 1)}…` : flat;
}
