import { Injectable } from '@nestjs/common';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isNestclawError } from '@nestclaw/common';
import { ConfigService, loadConfig, redactSecrets, secretValues } from '@nestclaw/config';
import { DatabaseService } from '@nestclaw/db';
import { ModelStatus, ProviderStatusService } from '@nestclaw/provider';
import { ExecutorSelector } from '@nestclaw/tool';
import { ClusterCheck } from './cluster.check';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about a warn/fail. */
  fix?: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}

/** Health checks shared by `GET /doctor` and `nestclaw doctor`. Secrets are never printed. */
@Injectable()
export class DoctorService {
  /**
   * Checks of parts that run only in the gateway (plugins, MCP servers, the memory index), added by whoever
   * builds them (libs/plugin; apps/gateway's GatewayDoctorChecks), asked on every run in the order added.
   */
  private readonly extra: (() => DoctorCheck[] | Promise<DoctorCheck[]>)[] = [];

  constructor(
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
    private readonly providers: ProviderStatusService,
    private readonly sandbox: ExecutorSelector,
    private readonly cluster: ClusterCheck,
  ) {}

  /** Adds lines from a part the CLI's doctor does not run (see `extra`). */
  addChecks(source: () => DoctorCheck[] | Promise<DoctorCheck[]>): void {
    this.extra.push(source);
  }

  async run(): Promise<DoctorReport> {
    const checks: DoctorCheck[] = [
      this.checkConfig(),
      ...(await this.checkDatabase()),
      ...(await this.cluster.run()),
      ...(await this.checkProviders()),
      this.checkTokenFile(),
      await this.checkSandbox(),
      ...(await Promise.all(this.extra.map((source) => source()))).flat(),
    ];
    // A probe error may echo what it was sent: no configured secret leaves in the report.
    const secrets = secretValues(this.config.get());
    const scrub = (c: DoctorCheck): DoctorCheck => ({
      ...c,
      message: redactSecrets(c.message, secrets),
      ...(c.fix ? { fix: redactSecrets(c.fix, secrets) } : {}),
    });
    return { ok: checks.every((c) => c.status !== 'fail'), checks: checks.map(scrub) };
  }

  /**
   * The file on disk, read again now: after a hot reload failed, the running configuration is the
   * last valid one while the file says something else, and the next start would refuse the file.
   */
  private checkConfig(): DoctorCheck {
    const path = this.config.path;
    try {
      loadConfig(path, this.config.options.env);
    } catch (e) {
      // Unreadable counts too (EACCES, a directory in its place): the next start fails on it alike.
      const why = isNestclawError(e) ? e.message : `cannot read ${path}: ${(e as Error).message}`;
      return {
        name: 'config',
        status: 'fail',
        message: `${why}\nThe running gateway keeps using its last valid configuration; the next start would refuse this file.`,
        fix: `correct ${path} as listed above (or remove the keys to use the defaults)`,
      };
    }
    return existsSync(path)
      ? { name: 'config', status: 'ok', message: `loaded ${path}` }
      : { name: 'config', status: 'ok', message: `no ${path}; using defaults and environment variables` };
  }

  private async checkDatabase(): Promise<DoctorCheck[]> {
    const ping = await this.db.ping();
    const where = this.db.describe();
    if (!ping.ok) {
      return [
        {
          name: 'database',
          status: 'fail',
          message: `${where}: ${ping.error}`,
          fix: 'start PostgreSQL or unset DATABASE_URL to use the embedded database',
        },
      ];
    }
    const checks: DoctorCheck[] = [{ name: 'database', status: 'ok', message: `${where} answered in ${ping.latencyMs.toFixed(1)} ms` }];
    const pending = await this.db.pendingMigrations();
    checks.push(
      pending.length
        ? { name: 'migrations', status: 'fail', message: `${pending.length} pending: ${pending.join(', ')}`, fix: 'run `nestclaw migrate`' }
        : { name: 'migrations', status: 'ok', message: 'all applied' },
    );
    return checks;
  }

  private async checkProviders(): Promise<DoctorCheck[]> {
    const report = await this.providers.report({ probe: true, fresh: true });
    const checks: DoctorCheck[] = report.misconfigured.map((b) => ({
      name: `model ${b.name}`,
      status: 'fail' as const,
      message: b.error,
      fix: `fix models.${b.name} in ${this.config.path}`,
    }));
    if (report.models.length === 0 && checks.length === 0) {
      return [
        {
          name: 'provider',
          status: 'fail',
          message: 'no model provider is configured; chat turns will fail',
          fix: 'set OPENAI_BASE_URL and OPENAI_API_KEY (and NESTCLAW_MODEL), or add a models: section to config.yaml',
        },
      ];
    }
    checks.push(...report.models.map((m) => this.modelCheck(m)), ...this.checkModelNames(report.models));
    return checks;
  }

  /** One line per model: reachability, key, breaker state and recent error rate (never the key itself). */
  private modelCheck(m: ModelStatus): DoctorCheck {
    const name = `model ${m.name}`;
    const key = m.keySet ? 'key set' : m.keyRequired ? 'no key set' : 'no key needed';
    const errors = m.recent.calls ? `${Math.round(m.recent.errorRate * 100)}% errors in ${m.recent.calls} recent calls` : 'no recent calls';
    const facts = `${m.provider}, ${key}, breaker ${m.breaker.state}, ${errors}`;
    const r = m.reachability;
    if (m.keyRejected) {
      const seen = r?.keyRejected ? `HTTP ${r.status} on probe` : `HTTP ${m.lastAuthFailure?.status ?? '?'} on its last call`;
      return {
        name,
        status: 'fail',
        message: `bad or expired key for ${m.name} (${seen}); ${facts}`,
        fix: `set a valid api_key for models.${m.name}`,
      };
    }
    if (r && !r.reachable) {
      return {
        name,
        status: 'fail',
        message: `${m.model} at ${m.endpoint} not reachable: ${r.error}; ${facts}`,
        fix: `check models.${m.name}.base_url and the network`,
      };
    }
    if (!m.keySet && m.keyRequired) {
      return { name, status: 'warn', message: `no key set for ${m.name}; ${facts}`, fix: `set models.${m.name}.api_key` };
    }
    if (m.breaker.state !== 'closed') {
      return { name, status: 'warn', message: `circuit ${m.breaker.state} for ${m.name} (failing recently); ${facts}` };
    }
    return { name, status: 'ok', message: `${m.model} at ${m.endpoint} reachable${r ? ` in ${r.latencyMs} ms` : ''}; ${facts}` };
  }

  /** Chains naming a model that does not exist (or is an embedding model) silently lose it. */
  private checkModelNames(models: ModelStatus[]): DoctorCheck[] {
    const chat = new Set(models.filter((m) => m.kind === 'chat').map((m) => m.name));
    const { providers, agents } = this.config.get();
    const refs: [string, string | undefined][] = [
      ['providers.primary', providers.primary],
      ...providers.fallback.map((n): [string, string] => ['providers.fallback', n]),
      ...Object.entries(agents).flatMap(([id, a]): [string, string | undefined][] => [
        [`agents.${id}.model`, a.model],
        ...(a.fallback ?? []).map((n): [string, string] => [`agents.${id}.fallback`, n]),
      ]),
    ];
    return refs
      .filter(([, n]) => n !== undefined && !chat.has(n))
      .map(([where, n]) => ({
        name: 'model names',
        status: 'warn' as const,
        message: `${where} names "${n}", which is not a configured chat model; it is skipped`,
        fix: `add models.${n} or fix ${where} in ${this.config.path}`,
      }));
  }

  /** Which executor tools run in, and why each stronger one is not used. */
  private async checkSandbox(): Promise<DoctorCheck> {
    const s = await this.sandbox.status();
    const why = Object.entries(s.unavailable)
      .map(([kind, reason]) => `${kind}: ${reason}`)
      .join('; ');
    if (!s.active)
      return {
        name: 'sandbox',
        status: s.files ? 'warn' : 'fail',
        message: `${s.disabledReason}${why ? ` (${why})` : ''}`,
        fix: 'install bubblewrap (apt-get install bubblewrap) or start Docker, then restart nestclaw',
      };
    const message = `tools run in the ${s.active} executor (limits: ${s.limits})${why ? `; not used: ${why}` : ''}`;
    return s.active === 'native'
      ? {
          name: 'sandbox',
          status: 'warn',
          message: `commands run on the host WITHOUT a sandbox (tools.sandbox: native, acknowledged): ${message}`,
          fix: 'install bubblewrap (apt-get install bubblewrap) or start Docker, then set tools.sandbox: auto',
        }
      : { name: 'sandbox', status: 'ok', message };
  }

  private checkTokenFile(): DoctorCheck {
    if (this.config.options.env.NESTCLAW_TOKEN) return { name: 'token', status: 'ok', message: 'from NESTCLAW_TOKEN' };
    const path = join(this.config.home, 'token');
    if (!existsSync(path))
      return { name: 'token', status: 'warn', message: `${path} does not exist yet`, fix: 'start the gateway once to generate it' };
    const mode = statSync(path).mode & 0o777;
    return mode & 0o077
      ? { name: 'token', status: 'fail', message: `${path} is readable by others (mode ${mode.toString(8)})`, fix: `chmod 600 ${path}` }
      : { name: 'token', status: 'ok', message: `${path} (mode 600)` };
  }
}
