import { Harness, startHarness } from '../../support/gateway-harness';

interface Check {
  name: string;
  status: string;
  message: string;
}

const doctorSandbox = async (h: Harness): Promise<Check> => {
  const { checks } = (await (await h.api('/doctor')).json()) as { checks: Check[] };
  return checks.find((c) => c.name === 'sandbox')!;
};

describe('sandbox selection', () => {
  describe('auto', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ config: { tools: { docker: { socket: '/nonexistent/docker.sock' } } } });
    });
    afterAll(() => h.stop());

    it('reports the active executor and why stronger ones are not used', async () => {
      const check = await doctorSandbox(h);
      expect(check.message).toMatch(
        /^tools run in the (bubblewrap|native) executor \(limits: .+\); not used: docker: no Docker daemon answers/,
      );
      if (check.message.includes('bubblewrap executor')) expect(check.status).toBe('ok');
      else expect(check).toMatchObject({ status: 'warn', message: expect.stringContaining('bubblewrap: ') });
    });
  });

  describe('a required sandbox that is missing', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ config: { tools: { sandbox: 'docker', docker: { socket: '/nonexistent/docker.sock' } } } });
    });
    afterAll(() => h.stop());

    it('disables shell and file tools with a clear message instead of running them bare', async () => {
      const res = await h.api('/v1/chat', { json: { message: 'run [tool:shell {"command":"wc -l"}]' } });
      const { reply } = (await res.json()) as { reply: string };
      expect(reply).toContain('tool disabled: tools.sandbox is "docker" but it is not available here');
      const list = await h.api('/v1/chat', { json: { message: 'ls [tool:file_list {"path":"."}]' } });
      expect(((await list.json()) as { reply: string }).reply).toContain('tool disabled');
      const { approvals } = (await (await h.api('/v1/approvals')).json()) as { approvals: unknown[] };
      expect(approvals).toHaveLength(0);
    });

    it('fails the doctor sandbox check', async () => {
      expect(await doctorSandbox(h)).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('docker: no Docker daemon answers'),
      });
    });

    it('still runs tools that need no sandbox', async () => {
      const res = await h.api('/v1/chat', { json: { message: 'time? [tool:current_time {}]' } });
      expect(((await res.json()) as { reply: string }).reply).toContain('"timezone":"UTC"');
    });
  });
});
