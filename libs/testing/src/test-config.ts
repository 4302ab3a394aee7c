import { configSchema, ConfigService, NestclawConfig } from '@nestclaw/config';

/**
 * A ConfigService stand-in holding a validated config (schema defaults plus `raw`), for services
 * built by hand in specs. Only `get()` and `home` are provided: what services read at run time.
 */
export function testConfigService(raw: Record<string, unknown> = {}, home = '/nonexistent-nestclaw-home'): ConfigService {
  const config: NestclawConfig = configSchema.parse(raw);
  return { get: () => config, home, path: `${home}/config.yaml` } as unknown as ConfigService;
}
