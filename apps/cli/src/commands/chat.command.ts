import { Command } from 'commander';
import { createInterface } from 'node:readline';
import { GatewayApprovalsClient } from '../approvals/gateway-approvals.client';
import { visible } from '../approvals/approval-view';
import { ApprovalPrompt } from '../chat/approval.prompt';
import { clientToken, gatewayWsUrl, httpBaseOfWs } from '../chat/gateway-endpoint';
import { GatewayConnectError, RunningTurn, TurnOutcome, WsChatClient } from '../chat/ws-chat.client';
import { dim, finish, messageOf, note, red } from '../cli-output';

interface ChatOptions {
  session?: string;
  agent?: string;
  url?: string;
}

export function chatCommand(): Command {
  return new Command('chat')
    .description('chat with the running gateway from the terminal; reads one message per line when stdin is piped')
    .option('-s, --session <id>', 'continue an existing session')
    .option('-a, --agent <id>', 'agent for a new session (default "default")')
    .option('-u, --url <url>', 'gateway URL (default http://<server.host>:<server.port> from the config)')
    .action(async (opts: ChatOptions) => finish(await chat(opts)));
}

async function chat(opts: ChatOptions): Promise<number> {
  let url: string;
  try {
    url = gatewayWsUrl(opts.url);
  } catch (e) {
    note(red(messageOf(e)));
    return 1;
  }
  const { token, tried } = clientToken();
  if (!token) {
    note(red(`no API token: ${tried} does not exist. Start the gateway once (\`nestclaw start\`) or set NESTCLAW_TOKEN.`));
    return 1;
  }
  let client: WsChatClient;
  try {
    client = await WsChatClient.connect(url, token);
  } catch (e) {
    const status = e instanceof GatewayConnectError ? e.status : undefined;
    if (status === 401) note(red(`the gateway at ${url} rejected the token from ${tried} (${messageOf(e)}); see \`nestclaw token\``));
    else if (status) note(red(`the gateway at ${url} refused the connection: ${messageOf(e)}`));
    else note(red(`cannot reach the gateway: is \`nestclaw start\` running? tried ${url} (${messageOf(e)})`));
    return 1;
  }
  return new ChatSession(client, new GatewayApprovalsClient(httpBaseOfWs(url), token), opts).run(url);
}

/** One terminal conversation: a line in, a streamed reply out, the session kept across turns. */
class ChatSession {
  private sessionId?: string;
  private current?: { turn: RunningTurn; cancelled: boolean; approval?: ApprovalPrompt };
  private failures = 0;
  private readonly interactive = !!process.stdin.isTTY;
  private readonly rl = createInterface({
    input: process.stdin,
    output: this.interactive ? process.stdout : undefined,
    terminal: this.interactive,
    prompt: 'you> ',
  });

  constructor(
    private readonly client: WsChatClient,
    private readonly approvals: GatewayApprovalsClient,
    private readonly opts: ChatOptions,
  ) {
    this.sessionId = opts.session;
  }

  async run(url: string): Promise<number> {
    let lost = false;
    this.client.onClosed = () => {
      lost = true;
      note(red('\nthe gateway closed the connection'));
      this.rl.close();
    };
    // Ctrl-C: cancel the reply in progress, else quit. A TTY readline owns the keypress; a pipe gets the signal.
    const interrupt = () => this.interrupt();
    this.rl.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    if (this.interactive) {
      note(dim(`connected to ${url}${this.sessionId ? `, session ${this.sessionId}` : ''}. Type /exit or press Ctrl-C to quit.`));
      this.rl.prompt();
    }
    for await (const raw of this.rl) {
      const line = raw.trim();
      if (line === '/exit' || line === '/quit') break;
      if (line) await this.turn(line);
      if (lost) break;
      if (this.interactive) this.rl.prompt();
    }
    this.rl.close();
    process.off('SIGINT', interrupt);
    this.client.close();
    return lost || (!this.interactive && this.failures > 0) ? 1 : 0;
  }

  private interrupt(): void {
    if (!this.current) return void this.rl.close();
    if (this.current.cancelled) return finish(130); // second Ctrl-C: stop waiting for the gateway
    this.current.cancelled = true;
    this.current.approval?.interrupt();
    this.client.cancel(this.current.turn.id);
  }

  private async turn(message: string): Promise<void> {
    let streamed = '';
    let lineOpen = false;
    const endLine = () => {
      if (lineOpen) process.stdout.write('\n');
      lineOpen = false;
    };
    // Any event after approval_required means the turn went on: the question, if still open, is moot.
    const movedOn = () => state.approval?.dismiss();
    const turn = this.client.chat(
      message,
      { sessionId: this.sessionId, agentId: this.sessionId ? undefined : this.opts.agent },
      {
        onStarted: (sessionId) => {
          if (sessionId !== this.sessionId) note(dim(`(session ${sessionId})`));
          this.sessionId = sessionId;
        },
        onToken: (text) => {
          movedOn();
          streamed += text;
          lineOpen = !text.endsWith('\n');
          process.stdout.write(text);
        },
        onToolCall: (name, input) => {
          endLine();
          // One line: a call that needs approval is shown in full by the approval prompt.
          note(dim(`[tool ${name} ${visible(oneLine(JSON.stringify(input) ?? '', 200))}]`));
        },
        onToolResult: (name, output, isError) => {
          movedOn();
          note(dim(`[${name} ${isError ? 'failed' : 'returned'}: ${oneLine(output, 200)}]`));
        },
        onApprovalRequired: (approvalId, tool, input) => {
          endLine();
          state.approval = new ApprovalPrompt(approvalId, this.rl, this.interactive, this.approvals);
          asking = state.approval.run(tool, input).catch((e: unknown) => note(red(`approval prompt failed: ${messageOf(e)}`)));
        },
      },
    );
    const state: NonNullable<ChatSession['current']> = { turn, cancelled: false };
    let asking: Promise<void> = Promise.resolve();
    this.current = state;
    const outcome: TurnOutcome = await turn.outcome;
    movedOn();
    await asking;
    this.current = undefined;
    if (outcome.ok && !streamed && outcome.reply) {
      // A reply that was not streamed token by token still gets printed.
      process.stdout.write(outcome.reply);
      lineOpen = true;
    }
    endLine();
    // A cancelled turn may end as an error or, when the model had already finished, as done.
    if (state.cancelled) {
      note(dim('(cancelled)'));
      // Ctrl-C at the approval prompt: the turn has stopped; now make sure the call never runs.
      return state.approval?.denyAfterCancel();
    }
    if (outcome.ok) return;
    this.failures++;
    note(red(`error (${outcome.code}): ${outcome.message}`));
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
