import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { PromptOutcome } from '../screen/prompt-keys';

/** What an approver is shown for an agent's `session/request_permission`: what it is, not just "Permission". */
export interface AcpPermissionInput {
  cli: string;
  tool: string;
  kind: string;
  /** A shell command the agent wants to run, when it said so in its raw input. */
  command?: string;
  /** Files it touches (diffs and locations). */
  paths: string[];
  diffs: { path: string; oldText: string | null; newText: string }[];
  /** Plain text it attached to the tool call, line by line. */
  text: string[];
}

/** Maps an ACP permission request to an approval input (pure: the approval itself is asked elsewhere). */
export function permissionInput(cli: string, req: RequestPermissionRequest): AcpPermissionInput {
  const call = req.toolCall;
  const diffs: AcpPermissionInput['diffs'] = [];
  const text: string[] = [];
  for (const c of call.content ?? []) {
    if (c.type === 'diff') diffs.push({ path: c.path, oldText: c.oldText ?? null, newText: c.newText });
    else if (c.type === 'content' && c.content.type === 'text') text.push(...c.content.text.split('\n'));
  }
  const paths = [...new Set([...diffs.map((d) => d.path), ...(call.locations ?? []).map((l) => l.path)])];
  const raw = call.rawInput as { command?: unknown } | null | undefined;
  const command =
    typeof raw?.command === 'string' ? raw.command : Array.isArray(raw?.command) ? raw.command.join(' ') : undefined;
  return {
    cli,
    tool: call.title ?? call.name ?? call.toolCallId,
    kind: call.kind ?? 'other',
    ...(command ? { command } : {}),
    paths,
    diffs,
    text,
  };
}

/**
 * The agent's answer for a decision: approve picks its `allow_once` option (never `allow_always`: each
 * use is asked again); deny or an expired approval picks `reject_once`. With no such option offered the
 * request is `cancelled`, which the agent treats as a refusal, so nothing is ever allowed by default.
 */
export function permissionOutcome(decision: PromptOutcome, options: PermissionOption[]): RequestPermissionOutcome {
  const kind = decision === 'approve' ? 'allow_once' : 'reject_once';
  const option = options.find((o) => o.kind === kind);
  return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
}
