import type Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { SANDBOX_WORKSPACE } from '../workspace/workspace';
import { SANDBOX_UID } from '../workspace/workspace.locator';
import { SandboxedFileOps } from './sandboxed-file-ops';
import type { DirEntry, ExecRequest, ExecResult, ExecutorProbe, FileRequest, ToolExecutor } from './tool-executor.port';

/** How long a finished run's output may still take to arrive through the attached stream. */
const OUTPUT_DRAIN_MS = 2_000;

const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Where dockerode connects without DOCKER_HOST or a configured socket. */
const DEFAULT_SOCKET = '/var/run/docker.sock';

export interface DockerExecutorOptions {
  image: string;
  /** Unix socket of the daemon; default DOCKER_HOST or /var/run/docker.sock. */
  socketPath?: string;
}

/**
 * One throw-away container per call: no network (unless allowed), read-only root, every capability
 * dropped, non-root user, memory/pids/CPU limits, tmpfs /tmp and the workspace mounted rw, ro or not
 * at all.
 */
export class DockerExecutor implements ToolExecutor {
  readonly kind = 'docker' as const;
  readonly isolated = true;
  private readonly files = new SandboxedFileOps((r) => this.exec(r));
  private probed?: Promise<ExecutorProbe>;

  private client: Docker | undefined;

  constructor(private readonly options: DockerExecutorOptions) {}

  /**
   * dockerode (with ssh2 and docker-modem, ~7 MB RSS in the gateway) loads when Docker is first
   * asked, and not at all on a host without a Docker socket.
   */
  private get docker(): Docker {
    if (!this.client) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Dockerode = require('dockerode') as typeof Docker;
      this.client = new Dockerode(this.options.socketPath ? { socketPath: this.options.socketPath } : undefined);
    }
    return this.client;
  }

  probe(): Promise<ExecutorProbe> {
    return (this.probed ??= this.doProbe());
  }

  private async doProbe(): Promise<ExecutorProbe> {
    // dockerode's own default (DOCKER_HOST, else this socket): with neither, nothing can answer.
    const socket = this.options.socketPath ?? (process.env.DOCKER_HOST ? undefined : DEFAULT_SOCKET);
    if (socket && !existsSync(socket)) return { available: false, reason: `no Docker daemon answers (connect ENOENT ${socket})` };
    try {
      await withTimeout(this.docker.ping(), 1500);
    } catch (e) {
      return { available: false, reason: `no Docker daemon answers (${(e as Error).message.slice(0, 120)})` };
    }
    try {
      await withTimeout(this.docker.getImage(this.options.image).inspect(), 3000);
    } catch {
      return { available: false, reason: `Docker answers but image "${this.options.image}" is not present (docker pull it)` };
    }
    return { available: true };
  }

  /** The container settings for a request (exposed for tests). */
  containerSpec(req: ExecRequest): Docker.ContainerCreateOptions {
    const binds =
      req.workspace.access === 'none'
        ? []
        : [`${req.workspace.hostPath}:${SANDBOX_WORKSPACE}:${req.workspace.access === 'rw' ? 'rw' : 'ro'}`];
    return {
      Image: this.options.image,
      Cmd: req.argv,
      User: `${SANDBOX_UID}:${SANDBOX_UID}`,
      WorkingDir: req.workspace.access === 'none' ? '/tmp' : SANDBOX_WORKSPACE,
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/tmp', 'LANG=C.UTF-8'],
      NetworkDisabled: !req.network,
      OpenStdin: req.stdin !== undefined,
      StdinOnce: true,
      AttachStdin: req.stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      HostConfig: {
        NetworkMode: req.network ? 'bridge' : 'none',
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: req.limits.memoryMb * 1024 * 1024,
        MemorySwap: req.limits.memoryMb * 1024 * 1024,
        PidsLimit: req.limits.pids,
        NanoCpus: Math.round(req.limits.cpus * 1e9),
        // Owned by the sandbox user: Docker copies the image's /tmp mode (0755 root in minimal images)
        // onto the tmpfs and ignores mode=, so the user could not write /tmp otherwise.
        Tmpfs: { '/tmp': `rw,nosuid,nodev,size=64m,mode=1777,uid=${SANDBOX_UID},gid=${SANDBOX_UID}` },
        Ulimits: [{ Name: 'fsize', Soft: req.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, Hard: req.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES }],
        Binds: binds,
      },
    };
  }

  async exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    const started = Date.now();
    const container = await this.docker.createContainer(this.containerSpec(req));
    const out = new Capped(req.maxOutputBytes);
    const err = new Capped(req.maxOutputBytes);
    let timedOut = false;
    const kill = () => void container.kill().catch(() => undefined);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, req.timeoutMs);
    signal?.addEventListener('abort', kill, { once: true });
    try {
      const stream = await container.attach({ stream: true, stdin: req.stdin !== undefined, stdout: true, stderr: true, hijack: true });
      const so = new PassThrough();
      const se = new PassThrough();
      so.on('data', (d: Buffer) => out.push(d));
      se.on('data', (d: Buffer) => err.push(d));
      container.modem.demuxStream(stream, so, se);
      const drained = new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
        stream.once('error', () => resolve());
      });
      await container.start();
      if (req.stdin !== undefined) {
        stream.write(req.stdin);
        (stream as unknown as { end(): void }).end();
      }
      const res = (await container.wait()) as { StatusCode: number };
      // The daemon can report the exit before the attached stream has delivered the last output (seen
      // under load: a run's final line missing): wait for the stream to end, bounded, then one tick
      // for the demuxed chunks still queued on their way to the buffers.
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, OUTPUT_DRAIN_MS).unref())]);
      await new Promise((resolve) => setImmediate(resolve));
      return {
        exitCode: res.StatusCode,
        signal: res.StatusCode === 137 ? 'SIGKILL' : null,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        truncated: out.truncated || err.truncated,
        durationMs: Date.now() - started,
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      await container.remove({ force: true }).catch(() => undefined);
    }
  }

  readFile(f: FileRequest, rel: string, maxBytes: number): Promise<string> {
    return this.files.readFile(f, rel, maxBytes);
  }

  writeFile(f: FileRequest, rel: string, content: string, append: boolean): Promise<void> {
    return this.files.writeFile(f, rel, content, append);
  }

  listDir(f: FileRequest, rel: string): Promise<DirEntry[]> {
    return this.files.listDir(f, rel);
  }
}

class Capped {
  private readonly parts: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(d: Buffer): void {
    const room = this.max - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const piece = d.length > room ? d.subarray(0, room) : d;
    if (piece.length < d.length) this.truncated = true;
    this.parts.push(piece);
    this.size += piece.length;
  }
  text(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}
