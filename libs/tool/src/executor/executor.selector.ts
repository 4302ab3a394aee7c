import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { setToolExecutor } from '@nestclaw/observability';
import { BubblewrapExecutor } from './bubblewrap.executor';
import { CgroupLimits } from './cgroup.limits';
import { DockerExecutor } from './docker.executor';
import { HostFileExecutor } from './host-file.executor';
import { RestrictedNativeExecutor } from './restricted-native.executor';
import type { ExecutorKind, ToolExecutor } from './tool-executor.port';

export interface SandboxStatus {
  /** The executor commands run in; null when the shell tool is not offered. */
  active: ExecutorKind | null;
  /** What the file tools use: the active executor, the gateway's own checked file access, or nothing. */
  files: ExecutorKind | 'files-only' | null;
  /** Why each stronger (or requested) executor is not used. */
  unavailable: Partial<Record<ExecutorKind, string>>;
  /** Set when sandboxed tools are disabled or the shell is not offered: what the model and the doctor show. */
  disabledReason?: string;
  /** How memory/process/CPU limits are enforced for bubblewrap and native runs. */
  limits?: string;
}

export interface Selection {
  status: SandboxStatus;
  /** Runs commands (shell); null: the shell tool is not offered. */
  executor: ToolExecutor | null;
  /** Runs the file tools; null: they are disabled too. */
  files: ToolExecutor | null;
}

/** auto never falls back to the native executor: with no sandbox there is no shell. */
const SANDBOXES: ExecutorKind[] = ['docker', 'bubblewrap'];

export const NO_SANDBOX_HELP =
  'install bubblewrap (apt-get install bubblewrap) or start Docker (with the tools.docker.image present), then restart nestclaw';

/** Picks the executor per `tools.sandbox`: auto = the strongest sandbox that works here. */
@Injectable()
export class ExecutorSelector {
  private readonly logger = new Logger('Sandbox');
  private bubblewrap?: { path: string; executor: BubblewrapExecutor };
  private readonly native = new RestrictedNativeExecutor();
  private readonly hostFiles = new HostFileExecutor();
  private docker?: { key: string; executor: DockerExecutor };
  private lastKey?: string;
  private cached?: Promise<Selection>;
  private settled?: Selection;

  constructor(private readonly config: ConfigService) {}

  private dockerExecutor(): DockerExecutor {
    const { image, socket } = this.config.get().tools.docker;
    const key = `${image}|${socket ?? ''}`;
    if (this.docker?.key !== key) this.docker = { key, executor: new DockerExecutor({ image, socketPath: socket }) };
    return this.docker.executor;
  }

  private bubblewrapExecutor(): BubblewrapExecutor {
    const { path } = this.config.get().tools.bubblewrap;
    if (this.bubblewrap?.path !== path) this.bubblewrap = { path, executor: new BubblewrapExecutor(path) };
    return this.bubblewrap.executor;
  }

  private byKind(kind: ExecutorKind): ToolExecutor {
    return kind === 'docker' ? this.dockerExecutor() : kind === 'bubblewrap' ? this.bubblewrapExecutor() : this.native;
  }

  /** The active executors, or null with a reason when tools that need them must stay off. */
  async select(): Promise<Selection> {
    const t = this.config.get().tools;
    const key = `${t.sandbox}|${t.require_sandbox}|${t.bubblewrap.path}|${t.docker.image}|${t.docker.socket ?? ''}`;
    if (this.cached && this.lastKey === key) return this.cached;
    this.lastKey = key;
    const pending = (this.cached = this.compute(t.sandbox, t.require_sandbox));
    const selection = await pending;
    if (this.cached === pending) this.settled = selection;
    const { status } = selection;
    setToolExecutor(status.active);
    if (status.active === 'native') this.logger.warn('tools run commands in the NATIVE executor: on the host, without a sandbox');
    else if (status.active) this.logger.log(`tools run in the ${status.active} executor`);
    else this.logger.warn(status.disabledReason ?? 'sandboxed tools disabled');
    return selection;
  }

  status(): Promise<SandboxStatus> {
    return this.select().then((s) => s.status);
  }

  /** Whether commands can run, as last selected (undefined before the first selection). */
  commandsAvailable(): boolean | undefined {
    return this.settled ? this.settled.executor !== null : undefined;
  }

  private async compute(wanted: 'auto' | ExecutorKind, requireSandbox: boolean): Promise<Selection> {
    const unavailable: SandboxStatus['unavailable'] = {};
    const candidates = wanted === 'auto' ? SANDBOXES : [wanted];
    for (const kind of candidates) {
      const executor = this.byKind(kind);
      const probe = await executor.probe();
      if (!probe.available) {
        unavailable[kind] = probe.reason ?? 'unavailable';
        continue;
      }
      return { status: { active: kind, files: kind, unavailable, limits: limitsNote(kind) }, executor, files: executor };
    }
    if (wanted !== 'auto') {
      return {
        status: {
          active: null,
          files: null,
          unavailable,
          disabledReason: `tools.sandbox is "${wanted}" but it is not available here (${unavailable[wanted] ?? 'unknown'}): shell and file tools are disabled`,
        },
        executor: null,
        files: null,
      };
    }
    const files = requireSandbox ? null : this.hostFiles;
    return {
      status: {
        active: null,
        files: files ? 'files-only' : null,
        unavailable,
        disabledReason: `no sandbox is available, so the shell tool is not offered${
          files ? ' (file tools still work, inside the workspace)' : ' and tools.require_sandbox disables the file tools'
        }: ${NO_SANDBOX_HELP}`,
      },
      executor: null,
      files,
    };
  }
}

function limitsNote(kind: ExecutorKind): string {
  if (kind === 'docker') return 'container limits';
  if (kind === 'native') return 'own uid per workspace, rlimits; no namespaces, network reachable';
  const cg = CgroupLimits.supported();
  return cg.ok ? 'per-run cgroup' : `rlimits only (${cg.reason})`;
}
