import { configSchema } from '../config.schema';
import { REDACTED, redactConfig } from '../config.secrets';
import { channelsSchema } from './channels.schema';

describe('channels.feishu', () => {
  it('defaults to off on open.feishu.cn with the same access defaults as the other channels', () => {
    const { feishu } = channelsSchema.parse({});
    expect(feishu).toMatchObject({ enabled: false, domain: 'feishu', allow_from: [], group_policy: 'allowlist', require_mention: true });
  });

  it('takes lark or an http(s) origin as the domain, and nothing else', () => {
    expect(channelsSchema.parse({ feishu: { domain: 'lark' } }).feishu.domain).toBe('lark');
    expect(channelsSchema.parse({ feishu: { domain: 'http://127.0.0.1:8080' } }).feishu.domain).toBe('http://127.0.0.1:8080');
    expect(channelsSchema.safeParse({ feishu: { domain: 'open.feishu.cn' } }).success).toBe(false);
  });

  it('refuses an app_id that is not cli_ + 16 hex digits, and the Telegram-only keys', () => {
    const r = channelsSchema.safeParse({ feishu: { app_id: 'cli_123' } });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].message).toMatch(/cli_ followed by 16 hex digits/);
    expect(channelsSchema.safeParse({ feishu: { app_id: 'cli_a1b2c3d4e5f60718' } }).success).toBe(true);
    expect(channelsSchema.safeParse({ feishu: { token: 'x' } }).success).toBe(false);
  });
});

describe('channels.feishu.app_secret', () => {
  it('is redacted in a config dump', () => {
    const config = configSchema.parse({ channels: { feishu: { app_id: 'cli_a1b2c3d4e5f60718', app_secret: 'feishu-secret-123' } } });
    const dump = redactConfig(config);
    expect(dump.channels.feishu.app_secret).toBe(REDACTED);
    expect(dump.channels.feishu.app_id).toBe('cli_a1b2c3d4e5f60718');
  });
});
