import { configSchema } from '../config.schema';
import { redactConfig, REDACTED, secretValues } from '../config.secrets';
import { webhooksSchema } from './webhooks.schema';

const secret = 'whsec-0123456789abcdef';

describe('webhooks: config', () => {
  it('fills the defaults: the nestclaw headers (lower case), the default agent and template, 64 KiB, answer kept in the session', () => {
    expect(webhooksSchema.parse({ alerts: { secret } })).toEqual({
      alerts: {
        secret,
        signature_header: 'x-nestclaw-signature',
        timestamp_header: 'x-nestclaw-timestamp',
        delivery_header: 'x-nestclaw-delivery',
        agent: 'default',
        template: 'A webhook delivered this payload:\n\n{{payload}}',
        max_body: 65_536,
        deliver_to: 'none',
      },
    });
  });

  it('takes a chat, a session or none as the target', () => {
    const parsed = webhooksSchema.parse({
      a: { secret, deliver_to: { channel: 'telegram', chat_id: 42 } },
      b: { secret, deliver_to: { session: 'ops:alerts' } },
    });
    expect(parsed.a.deliver_to).toEqual({ channel: 'telegram', chat_id: '42' });
    expect(parsed.b.deliver_to).toEqual({ session: 'ops:alerts' });
    expect(webhooksSchema.safeParse({ c: { secret, deliver_to: { channel: 'telegram' } } }).success).toBe(false);
  });

  it('refuses a short or empty secret (an unset environment variable), a template without {{payload}} and a bad id', () => {
    const message = (v: unknown) =>
      webhooksSchema
        .safeParse(v)
        .error?.issues.map((i) => i.message)
        .join('; ');
    expect(message({ a: { secret: '' } })).toContain('reference an environment variable');
    expect(message({ a: { secret, template: 'no payload' } })).toContain('{{payload}}');
    expect(webhooksSchema.safeParse({ 'a/b': { secret } }).success).toBe(false);
  });

  it('refuses an unknown agent and a cap above server.body_limit, naming the key', () => {
    const r = configSchema.safeParse({ webhooks: { a: { secret, agent: 'ghost', max_body: 2_000_000 } } });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['webhooks.a.agent', 'webhooks.a.max_body']);
  });

  it('keeps the secret out of dumps and logs like every other secret', () => {
    const config = configSchema.parse({ webhooks: { a: { secret } } });
    expect(redactConfig(config).webhooks.a.secret).toBe(REDACTED);
    expect(secretValues(config)).toContain(secret);
  });
});
