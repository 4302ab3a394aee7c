import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigService } from '@nestclaw/config';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export function generateToken(): string {
  return `ncw_${randomBytes(24).toString('base64url')}`;
}

/** Writes a token file readable by the owner only. */
export function writeTokenFile(path: string, token: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * The gateway's bearer token: `NESTCLAW_TOKEN`, else `$NESTCLAW_HOME/token`, generated on first
 * start (mode 0600) and printed once. Compared in constant time; the file is re-checked on every call,
 * so `nestclaw token rotate` takes effect at once, without a restart.
 */
@Injectable()
export class ApiTokenService implements OnModuleInit {
  private readonly logger = new Logger('Auth');
  private hash?: Buffer;
  private fileMtimeMs = 0;

  constructor(private readonly config: ConfigService) {}

  get tokenPath(): string {
    return join(this.config.home, 'token');
  }

  get fromEnv(): boolean {
    return !!this.config.options.env.NESTCLAW_TOKEN;
  }

  onModuleInit(): void {
    const envToken = this.config.options.env.NESTCLAW_TOKEN;
    if (envToken) {
      this.hash = sha256(envToken);
      return;
    }
    if (!existsSync(this.tokenPath)) {
      const token = generateToken();
      writeTokenFile(this.tokenPath, token);
      // Printed on the first start, straight to stdout (never through the logger), so the owner can copy it.
      process.stdout.write(
        `\nnestclaw API token (saved to ${this.tokenPath}, mode 600; \`nestclaw token\` prints it again):\n  ${token}\n\n`,
      );
    }
    this.loadFile();
  }

  private loadFile(): void {
    const token = readFileSync(this.tokenPath, 'utf8').trim();
    this.fileMtimeMs = statSync(this.tokenPath).mtimeMs;
    if (!token) throw new Error(`${this.tokenPath} is empty; delete it to generate a new token`);
    this.hash = sha256(token);
  }

  verify(candidate: string | undefined): boolean {
    if (!candidate || !this.hash) return false;
    // A stat per check (microseconds) makes `nestclaw token rotate` revoke the old token at once.
    if (!this.fromEnv) this.reloadIfChanged();
    return timingSafeEqual(sha256(candidate), this.hash);
  }

  private reloadIfChanged(): void {
    try {
      if (statSync(this.tokenPath).mtimeMs !== this.fileMtimeMs) {
        this.loadFile();
        this.logger.log('token file changed; using the new token');
      }
    } catch {
      // file removed or unreadable: keep the token we have
    }
  }
}
