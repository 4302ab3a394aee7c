import { Command, InvalidArgumentError, Option } from 'commander';
import { decideCommands, describeCall, describeExpiry } from '../approvals/approval-view';
import { ApprovalApiError, ApprovalView, GatewayApprovalsClient, MAX_LIST } from '../approvals/gateway-approvals.client';
import { clientToken, runningGatewayBase } from '../chat/gateway-endpoint';
import { dim, finish, green, messageOf, note, out, red } from '../cli-output';

interface Target {
  url?: string;
}

/**
 * `nestclaw approvals list|approve|deny`: tool calls waiting for a human, decided from any terminal.
 * Everything goes through the running gateway's `/v1/approvals` so the paused turn resumes there.
 */
export function approvalsCommand(): Command {
  const approvals = new Command('approvals').description(
    'tool calls waiting for approval: list, approve, deny (through the running gateway)',
  );
  const url = () => new Option('-u, --url <url>', 'gateway URL (default: the gateway started from $NESTCLAW_HOME, else server.host/port)');
  approvals
    .command('list', { isDefault: true })
    .description('approvals, newest first (default: pending ones)')
    .addOption(
      new Option('--status <status>', 'pending, approved, denied or expired')
        .choices(['pending', 'approved', 'denied', 'expired'])
        .default('pending'),
    )
    .option('--limit <n>', `how many (1-${MAX_LIST})`, positiveLimit, 50)
    .option('--json', 'print as JSON')
    .addOption(url())
    .action((opts: Target & { status: ApprovalView['status']; limit: number; json?: boolean }) => run(opts, (c) => list(c, opts)));
  approvals
    .command('approve')
    .description('approve a pending tool call; its turn goes on')
    .argument('<id>', 'approval id (or a unique prefix) from `nestclaw approvals list`')
    .option('--remember', 'also approve this exact call (the same command or input) from now on')
    .addOption(url())
    .action((id: string, opts: Target & { remember?: boolean }) => run(opts, (c) => decide(c, id, 'approve', !!opts.remember)));
  approvals
    .command('deny')
    .description('deny a pending tool call; the model is told it was refused')
    .argument('<id>', 'approval id (or a unique prefix) from `nestclaw approvals list`')
    .addOption(url())
    .action((id: string, opts: Target) => run(opts, (c) => decide(c, id, 'deny', false)));
  return approvals;
}

function positiveLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIST) throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_LIST}`);
  return n;
}

async function run(opts: Target, fn: (client: GatewayApprovalsClient) => Promise<number>): Promise<void> {
  const base = runningGatewayBase(opts.url);
  const { token, tried } = clientToken();
  if (!base) return fail('no gateway to ask: none started from this $NESTCLAW_HOME and the config file is invalid; pass --url');
  if (!token) return fail(`no API token: ${tried} does not exist. Start the gateway once (\`nestclaw start\`) or set NESTCLAW_TOKEN.`);
  try {
    finish(await fn(new GatewayApprovalsClient(base, token)));
  } catch (e) {
    fail(explain(e, base));
  }
}

function fail(message: string): void {
  note(red(`✖ ${message}`));
  finish(1);
}

/** The gateway's answer plus what to do next. */
function explain(e: unknown, base: string): string {
  if (!(e instanceof ApprovalApiError)) return messageOf(e);
  switch (e.status) {
    case 0:
      return `${e.message}: is \`nestclaw start\` running? (or pass --url)`;
    case 401:
      return `the gateway at ${base} rejected the token (${e.message}); see \`nestclaw token\``;
    case 403:
      return `${e.message}: deciding approvals needs a token with the \`approve\` scope (the owner token has it)`;
    case 404:
      return `${e.message}; \`nestclaw approvals list --status pending\` shows the ones waiting`;
    case 409:
      return e.code === 'ambiguous'
        ? e.message
        : `${e.message}: nothing left to decide; \`nestclaw approvals list --status approved\` (or denied, expired) shows who decided`;
    default:
      return `${e.message} (HTTP ${e.status})`;
  }
}

async function list(
  client: GatewayApprovalsClient,
  opts: { status: ApprovalView['status']; limit: number; json?: boolean },
): Promise<number> {
  const approvals = await client.list(opts.status, opts.limit);
  if (opts.json) {
    out(JSON.stringify({ approvals }, null, 2));
    return 0;
  }
  if (approvals.length === 0) out(`no ${opts.status} approvals`);
  for (const a of approvals) {
    const state =
      a.status === 'pending' ? describeExpiry(a.expiresAt) : `${a.status} by ${a.decidedBy ?? 'the timeout'} at ${a.decidedAt ?? '?'}`;
    out(`${a.id}  ${a.tool}  ${state}  agent ${a.agentId}  ${a.channel}  session ${a.sessionId}`);
    for (const line of describeCall(a.tool, a.input).slice(1)) out(dim(`  ${line}`));
  }
  if (opts.status === 'pending' && approvals.length > 0) out(dim(`decide with: ${decideCommands('<id>').join(' | ')}`));
  return 0;
}

async function decide(
  client: GatewayApprovalsClient,
  idOrPrefix: string,
  decision: 'approve' | 'deny',
  remember: boolean,
): Promise<number> {
  const id = await client.resolveId(idOrPrefix);
  const a = await client.decide(id, decision, remember);
  const verb = a.status === 'approved' ? green(remember ? 'approved and remembered' : 'approved') : red('denied');
  out(`${verb} ${a.id} (${a.tool}, session ${a.sessionId})`);
  return 0;
}
