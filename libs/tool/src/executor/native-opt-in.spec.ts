import { configSchema, NATIVE_ACKNOWLEDGEMENT } from '@nestclaw/config';

const issues = (tools: Record<string, unknown>) => {
  const r = configSchema.safeParse({ tools });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the native executor is an explicit, acknowledged opt-in', () => {
  it('is refused without the acknowledgement, naming the key to set', () => {
    expect(issues({ sandbox: 'native', exec: { network: true } })).toEqual([
      expect.stringMatching(/^tools\.native\.acknowledge: tools\.sandbox: native runs commands on the host/),
    ]);
  });

  it('refuses network: false as unenforceable instead of ignoring it', () => {
    expect(issues({ sandbox: 'native', native: { acknowledge: NATIVE_ACKNOWLEDGEMENT } })).toEqual([
      expect.stringMatching(/^tools\.exec\.network: tools\.exec\.network: false cannot be enforced by the native executor/),
    ]);
  });

  it('is accepted with both', () => {
    expect(issues({ sandbox: 'native', native: { acknowledge: NATIVE_ACKNOWLEDGEMENT }, exec: { network: true } })).toEqual([]);
  });

  it('is never chosen by auto', () => {
    expect(issues({ sandbox: 'auto' })).toEqual([]);
    expect(configSchema.parse({}).tools.sandbox).toBe('auto');
  });
});
