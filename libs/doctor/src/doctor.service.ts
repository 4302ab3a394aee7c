import { Injectable } from '@nestjs/common';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigService } from '@nestclaw/config';
import { DatabaseService, redactUrl } from '@nestclaw/db';
import { ProviderRegistry, RegisteredModel } from '@nestclaw/provider';

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
  constructor(
    private readonly config: ConfigService,
    private readonly db: DatabaseService,
    private readonly providers: ProviderRegistry,
  ) {}

  async run(): Promise<DoctorReport> {
    const checks: DoctorCheck[] = [
      this.checkConfig(),
      ...(await this.checkDatabase()),
      ...(await this.checkProviders()),
      this.checkTokenFile(),
    ];
    return { ok: checks.every((c) => c.status !== 'fail'), checks };
  }

  private checkConfig(): DoctorCheck {
    const path = this.config.path;
    return existsSync(path)
      ? { name: 'config', status: 'ok', message: `loaded ${path}` }
      : { name: 'config', status: 'ok', message: `no ${path}; using defaults and environment variables` };
  }

  private async checkDatabase(): Promise<DoctorCheck[]> {
    const ping = await this.db.ping();
    const where = this.db.embedded ? `embedded PostgreSQL in ${join(this.config.home, 'pgdata')}` : redactUrl(this.db.url);
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
    const models = this.providers.all();
    const checks: DoctorCheck[] = this.providers
      .misconfigured()
      .map((b) => ({
        name: `model ${b.name}`,
        status: 'fail' as const,
        message: b.error,
        fix: `fix models.${b.name} in ${this.config.path}`,
      }));
    if (models.length === 0 && checks.length === 0) {
      return [
        {
          name: 'provider',
          status: 'fail',
          message: 'no model provider is configured; chat turns will fail',
          fix: 'set OPENAI_BASE_URL and OPENAI_API_KEY (and NESTCLAW_MODEL), or add a models: section to config.yaml',
        },
      ];
    }
    checks.push(...(await Promise.all(models.map((m) => this.probe(m)))));
    return checks;
  }

  /** Lists the server's models as a cheap reachability and key check (no tokens spent). */
  private async probe(m: RegisteredModel): Promise<DoctorCheck> {
    const name = `model ${m.name}`;
    const baseUrl = (m.config.base_url ?? '').replace(/\/+$/, '');
    if (!baseUrl) return { name, status: 'warn', message: `${m.provider.kind}/${m.provider.model}: default endpoint, not probed` };
    try {
      const res = await fetch(`${baseUrl}/models`, {
        headers: m.config.api_key ? { authorization: `Bearer ${m.config.api_key}` } : {},
        signal: AbortSignal.timeout(3000),
      });
      if (res.status === 401 || res.status === 403) {
        return {
          name,
          status: 'fail',
          message: `bad or expired key for ${m.name} (HTTP ${res.status})`,
          fix: `set a valid api_key for models.${m.name}`,
        };
      }
      const key = m.keySet ? 'key set' : 'no key set';
      return res.ok || res.status === 404
        ? { name, status: 'ok', message: `${m.provider.model} at ${baseUrl} reachable (${key})` }
        : { name, status: 'warn', message: `${baseUrl} answered HTTP ${res.status} (${key})` };
    } catch (e) {
      return {
        name,
        status: 'fail',
        message: `${baseUrl} not reachable: ${(e as Error).message}`,
        fix: `check models.${m.name}.base_url and the network`,
      };
    }
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
