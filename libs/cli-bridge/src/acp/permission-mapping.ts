import type { PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';

/** What a person decided on an ACP permission request: their button, or nothing (the turn was given up). */
export type PermissionDecision = 'approve' | 'deny' | 'cancelled';

/** A permission request as an approval's input: everything the agent told about the tool call, for the person deciding. */
export interface AcpApprovalInput {
  cli: string;
  /** The tool call's title as the agent shows it (`rm -rf build`, `Edit src/main.ts`). */
  tool: string;
  /** ACP's tool kind: `execute`, `edit`, `delete`, `fetch`, … (`other` when not given). */
  kind: string;
  /** The command line, when the agent's raw input has one. */
  command?: string;
  /** Files it touches, as `path` or `path:line`. */
  locations?: string[];
  /** Edits it proposes, whole: the text before (null for a new file) and after. */
  diffs?: { path: string; oldText: string | null; newText: string }[];
  /** Text the agent attached to the call. */
  notes?: string[];
  /** The tool's input as the agent sent it. */
  rawInput?: unknown;
  /** The choices the agent offered; nestclaw only ever picks a one-time allow or reject. */
  options: string[];
}

/** The approval input for `request` (the full detail: command, files, diffs), from the CLI named `cli`. */
export function permissionInput(cli: string, request: RequestPermissionRequest): AcpApprovalInput {
  const call = request.toolCall;
  const content = call.content ?? [];
  const command = commandOf(call.rawInput);
  const locations = (call.locations ?? []).map((l) => (l.line != null ? `${l.path}:${l.line}` : l.path));
  const diffs = content.flatMap((c) => (c.type === 'diff' ? [{ path: c.path, oldText: c.oldText ?? null, newText: c.newText }] : []));
  const notes = content.flatMap((c) => (c.type === 'content' && c.content.type === 'text' ? [c.content.text] : []));
  return {
    cli,
    tool: call.title ?? call.name ?? command ?? 'tool call',
    kind: call.kind ?? 'other',
    ...(command ? { command } : {}),
    ...(locations.length ? { locations } : {}),
    ...(diffs.length ? { diffs } : {}),
    ...(notes.length ? { notes } : {}),
    ...(call.rawInput !== undefined && call.rawInput !== null ? { rawInput: call.rawInput } : {}),
    options: request.options.map((o) => `${o.name} (${o.kind})`),
  };
}

/** What identifies the call among others (the approval's match key): its kind and command, or title and files. */
export function permissionMatchKey(input: AcpApprovalInput): string {
  return [input.kind, input.command ?? input.tool, ...(input.locations ?? [])].join(' ');
}

/**
 * The answer to the agent: approve picks its one-time allow, deny (or an approval nobody decided in
 * time) its one-time reject. Never an "always" option: each call is decided on its own. Without the
 * option a decision needs, or when the turn was given up, the request is `cancelled`.
 */
export function permissionOutcome(decision: PermissionDecision, request: RequestPermissionRequest): RequestPermissionOutcome {
  const wanted: PermissionOptionKind | undefined = decision === 'approve' ? 'allow_once' : decision === 'deny' ? 'reject_once' : undefined;
  const option = wanted && request.options.find((o) => o.kind === wanted);
  return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
}

/** `command` from a tool's raw input (a string or an argument list), as agents commonly send it. */
function commandOf(raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const c = (raw as { command?: unknown; cmd?: unknown }).command ?? (raw as { cmd?: unknown }).cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return c.join(' ');
  return undefined;
}
