import { ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import type {
  ClientConnection,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import { CliStartError } from '../session/cli-start-error';
import { loadAcpSdk } from './acp-sdk';

/** How long a CLI may take to answer `initialize` and `session/new` (an adapter started through npx is slow). */
const START_TIMEOUT_MS = 60_000;
/** After SIGTERM, how long the CLI's process group has to exit before SIGKILL. */
const KILL_GRACE_MS = 2_000;

export interface AcpLaunch {
  cli: string;
  /** The program and its arguments, a `setpriv` prefix first when it runs as another user: no shell. */
  command: string;
  args: string[];
  dir: string;
  /** The whole environment of the CLI: nothing of the gateway's leaks in. */
  env: Record<string, string>;
}

/** What the message being answered wants from the agent's side of the protocol while its turn runs. */
export interface AcpTurn {
  update(update: SessionUpdate): void;
  permission(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
}

/**
 * One CLI speaking the Agent Client Protocol over its stdin and stdout (newline-delimited JSON-RPC),
 * with the one ACP session nestclaw opened in the chosen directory. Spawned without a shell in a
 * process group of its own, so `kill` ends whatever it started too. Its updates and permission
 * requests go to the turn in progress; one arriving between turns is refused (`cancelled`).
 */
export class AcpProcess {
  /** Resolves when the program has exited, however it ended. */
  readonly exited: Promise<void>;
  private ended = false;
  private stderrTail = '';
  private connection?: ClientConnection;
  private sessionId = '';
  private turn?: AcpTurn;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => (this.ended = true));
    child.stderr!.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-2000)));
    // A CLI that died with a message on its way in must not take the gateway down (EPIPE).
    child.stdin!.on('error', () => undefined);
  }

  /** Starts the program, then `initialize` and `session/new` in `dir`; throws a CliStartError the chat can act on. */
  static async start(l: AcpLaunch): Promise<AcpProcess> {
    const sdk = await loadAcpSdk();
    const child = spawn(l.command, l.args, { cwd: l.dir, env: l.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const p = new AcpProcess(child);
    const spawnFailed = new Promise<never>((_, reject) =>
      child.once('error', (e) => reject(new CliStartError(`${l.cli} could not be started (${e.message}): check clis.${l.cli}.command.`))),
    );
    const exitedEarly = p.exited.then((): never => {
      throw new CliStartError(
        `${l.cli} exited while starting${p.stderr()}. Check that "${[l.command, ...l.args].join(' ')}" speaks ACP on stdin/stdout (e.g. gemini --acp).`,
      );
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CliStartError(`${l.cli} did not answer the ACP handshake within ${START_TIMEOUT_MS / 1000} s${p.stderr()}.`)),
        START_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([p.handshake(sdk, l.dir), spawnFailed, exitedEarly, late]);
      return p;
    } catch (e) {
      await p.kill();
      if (e instanceof CliStartError) throw e;
      throw new CliStartError(`${l.cli} refused to start an ACP session: ${(e as Error).message}${p.stderr()}.`);
    } finally {
      clearTimeout(timer);
      spawnFailed.catch(() => undefined);
      exitedEarly.catch(() => undefined);
    }
  }

  get alive(): boolean {
    return !this.ended;
  }

  /** Sends `text` as a prompt; `turn` gets the session's updates and permission requests until it ends. */
  async prompt(text: string, turn: AcpTurn): Promise<PromptResponse> {
    this.turn = turn;
    try {
      return await this.connection!.agent.request('session/prompt', { sessionId: this.sessionId, prompt: [{ type: 'text', text }] });
    } finally {
      if (this.turn === turn) this.turn = undefined;
    }
  }

  /** `session/cancel`: the agent stops its turn and answers its prompt with `cancelled`. */
  cancel(): void {
    if (this.alive) void this.connection?.agent.notify('session/cancel', { sessionId: this.sessionId }).catch(() => undefined);
  }

  /** SIGTERM to its process group, SIGKILL if it is still there after a grace period. */
  async kill(): Promise<void> {
    this.connection?.close();
    if (!this.alive || !this.child.pid) return;
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-this.child.pid!, s);
      } catch {
        // Gone already.
      }
    };
    signal('SIGTERM');
    const gone = await Promise.race([this.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), KILL_GRACE_MS))]);
    if (!gone) {
      signal('SIGKILL');
      await this.exited;
    }
  }

  private async handshake(sdk: Awaited<ReturnType<typeof loadAcpSdk>>, dir: string): Promise<void> {
    const stream = sdk.ndJsonStream(
      Writable.toWeb(this.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as ReadableStream<Uint8Array>,
    );
    this.connection = sdk
      .client({ name: 'nestclaw' })
      .onNotification('session/update', ({ params }) => {
        if (params.sessionId === this.sessionId) this.turn?.update(params.update);
      })
      .onRequest('session/request_permission', ({ params, signal }) =>
        this.turn && params.sessionId === this.sessionId ? this.turn.permission(params, signal) : { outcome: { outcome: 'cancelled' } },
      )
      .connect(stream);
    // No file system or terminal of ours is offered: the CLI uses its own tools and asks before risky ones.
    await this.connection.agent.request('initialize', {
      protocolVersion: sdk.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'nestclaw', version: '1' },
    });
    const session = await this.connection.agent.request('session/new', { cwd: dir, mcpServers: [] });
    this.sessionId = session.sessionId;
  }

  /** The end of what the program printed on stderr, for a start failure's message. */
  private stderr(): string {
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' / ').slice(-300);
    return tail ? ` (it said: ${tail})` : '';
  }
}
