import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestclaw/config';
import { setToolExecutor } from '@nestclaw/observability';
import { BubblewrapExecutor } from './bubblewrap.executor';
import { CgroupLimits } from './cgroup.limits';
import { DockerExecutor } from './docker.executor';
import { RestrictedNativeExecutor } from './restricted-native.executor';
import type { ExecutorKind, ToolExecutor } from './tool-executor.port';

export interface SandboxStatus {
  /** The executor tools run in; null when tools that need one are disabled. */
  active: ExecutorKind | null;
  /** Why each stronger (or requested) executor is not used. */
  unavailable: Partial<Record<ExecutorKind, string>>;
  /** Set when sandboxed tools are disabled: the message the model and the doctor show. */
  disabledReason?: string;
  /** How memory/process/CPU limits are enforced for bubblewrap and native runs. */
  limits?: string;
}

const STRENGTH: ExecutorKind[] = ['docker', 'bubblewrap', 'native'];

/** Picks the executor per `tools.sandbox`: auto = the strongest that works here. */
@Injectable()
export class ExecutorSelector {
  private readonly logger = new Logger('Sandbox');
  private readonly bubblewrap = new BubblewrapExecutor();
  private readonly native = new RestrictedNativeExecutor();
  private docker?: { key: string; executor: DockerExecutor };
  private lastKey?: string;
  private cached?: Promise<{ status: SandboxStatus; executor: ToolExecutor | null }>;

  constructor(private readonly config: ConfigService) {}

  private dockerExecutor(): DockerExecutor {
    const { image, socket } = this.config.get().tools.docker;
    const key = `${image}|${socket ?? ''}`;
    if (this.docker?.key !== key) this.docker = { key, executor: new DockerExecutor({ image, socketPath: socket }) };
    return this.docker.executor;
  }

  private byKind(kind: ExecutorKind): ToolExecutor {
    return kind === 'docker' ? this.dockerExecutor() : kind === 'bubblewrap' ? this.bubblewrap : this.native;
  }

  /** The active executor, or null with a reason when sandboxed tools must stay off. */
  async select(): Promise<{ status: SandboxStatus; executor: ToolExecutor | null }> {
    const t = this.config.get().tools;
    const key = `${t.sandbox}|${t.require_sandbox}|${t.docker.image}|${t.docker.socket ?? ''}`;
    if (this.cached && this.lastKey === key) return this.cached;
    this.lastKey = key;
    this.cached = this.compute(t.sandbox, t.require_sandbox);
    const { status } = await this.cached;
    setToolExecutor(status.active);
    if (status.active) this.logger.log(`tools run in the ${status.active} executor`);
    else this.logger.warn(status.disabledReason ?? 'sandboxed tools disabled');
    return this.cached;
  }

  status(): Promise<SandboxStatus> {
    return this.select().then((s) => s.status);
  }

  private async compute(
    wanted: 'auto' | ExecutorKind,
    requireSandbox: boolean,
  ): Promise<{ status: SandboxStatus; executor: ToolExecutor | null }> {
    const unavailable: SandboxStatus['unavailable'] = {};
    const candidates = wanted === 'auto' ? STRENGTH : [wanted];
    for (const kind of candidates) {
      const executor = this.byKind(kind);
      const probe = await executor.probe();
      if (!probe.available) {
        unavailable[kind] = probe.reason ?? 'unavailable';
        continue;
      }
      if (!executor.isolated && requireSandbox) {
        return {
          status: {
            active: null,
            unavailable,
            disabledReason:
              'tools.require_sandbox is set and neither Docker nor bubblewrap is available: shell and file tools are disabled',
          },
          executor: null,
        };
      }
      return { status: { active: kind, unavailable, limits: limitsNote(kind) }, executor };
    }
    return {
      status: {
        active: null,
        unavailable,
        disabledReason: `tools.sandbox is "${wanted}" but it is not available here (${unavailable[wanted as ExecutorKind] ?? 'unknown'}): shell and file tools are disabled`,
      },
      executor: null,
    };
  }
}

function limitsNote(kind: ExecutorKind): string {
  if (kind === 'docker') return 'container limits';
  if (kind === 'native') return 'rlimits only';
  const cg = CgroupLimits.supported();
  return cg.ok ? 'per-run cgroup' : `rlimits only (${cg.reason})`;
}
