import { Harness, startHarness } from '../../support/gateway-harness';
import { describeWithHostTools } from '../../support/host-tools';

interface Check {
  name: string;
  status: string;
  message: string;
  fix?: string;
}

const doctorSandbox = async (h: Harness): Promise<Check> => {
  const { checks } = (await (await h.api('/doctor')).json()) as { checks: Check[] };
  return checks.find((c) => c.name === 'sandbox')!;
};

const NO_DOCKER = { socket: '/nonexistent/docker.sock' };
const NO_BWRAP = { path: '/nonexistent/bwrap' };
const isRoot = process.getuid?.() === 0;

/** The tool names the model was offered in its last request. */
const offered = (h: Harness): string[] => {
  const last = h.llm.requests[h.llm.requests.length - 1].body as { tools?: { function: { name: string } }[] };
  return (last.tools ?? []).map((t) => t.function.name);
};

describe('sandbox selection', () => {
  // CI installs bubblewrap (.ci/run): there this runs or fails, never skips.
  describeWithHostTools(['bubblewrap'], 'auto, with bubblewrap and without Docker', (bin) => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ config: { tools: { docker: NO_DOCKER, bubblewrap: { path: bin.bubblewrap } } } });
    });
    afterAll(() => h.stop());

    it('picks bubblewrap and says why Docker is not used', async () => {
      const check = await doctorSandbox(h);
      expect(check.status).toBe('ok');
      expect(check.message).toMatch(/^tools run in the bubblewrap executor \(limits: .+\); not used: docker: no Docker daemon answers/);
    });

    it('offers the shell tool to the model', async () => {
      await h.api('/v1/chat', { json: { message: 'hello' } });
      expect(offered(h)).toContain('shell');
    });
  });

  describe('auto, with neither Docker nor bubblewrap', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ config: { tools: { docker: NO_DOCKER, bubblewrap: NO_BWRAP } } });
    });
    afterAll(() => h.stop());

    it('does not offer the shell tool to the model, but still the file tools', async () => {
      await h.api('/v1/chat', { json: { message: 'hello' } });
      const names = offered(h);
      expect(names).not.toContain('shell');
      expect(names).toEqual(expect.arrayContaining(['file_read', 'file_list', 'file_write']));
    });

    it('refuses a shell call the model makes anyway, without asking anyone', async () => {
      const res = await h.api('/v1/chat', { json: { message: 'run [tool:shell {"command":"wc -l"}]' } });
      const { reply } = (await res.json()) as { reply: string };
      expect(reply).toContain('tool disabled: no sandbox is available, so the shell tool is not offered');
      const { approvals } = (await (await h.api('/v1/approvals')).json()) as { approvals: unknown[] };
      expect(approvals).toHaveLength(0);
    });

    it('keeps the file tools working inside the workspace', async () => {
      const res = await h.api('/v1/chat', { json: { message: 'ls [tool:file_list {"path":"."}]' } });
      const { reply } = (await res.json()) as { reply: string };
      // The agent's workspace holds its bootstrap files (AGENTS.md, …): listed, not refused.
      expect(reply).toMatch(/^tool said: [\s\S]*AGENTS\.md/);
      const out = await h.api('/v1/chat', { json: { message: 'read [tool:file_read {"path":"../../../config.yaml"}]' } });
      expect(((await out.json()) as { reply: string }).reply).toContain('outside the workspace');
    });

    it('tells the doctor reader how to get a sandbox', async () => {
      const check = await doctorSandbox(h);
      expect(check.status).toBe('warn');
      expect(check.message).toContain('no sandbox is available, so the shell tool is not offered');
      expect(check.message).toContain('bubblewrap: /nonexistent/bwrap not found');
      expect(check.fix).toContain('apt-get install bubblewrap');
      expect(check.fix).toContain('start Docker');
    });
  });

  describe('a required sandbox that is missing', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ config: { tools: { sandbox: 'docker', docker: NO_DOCKER } } });
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

  (isRoot ? describe : describe.skip)('the native opt-in (root)', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({
        config: {
          tools: {
            sandbox: 'native',
            native: { acknowledge: 'commands run on the host without a sandbox' },
            exec: { network: true },
            approval: { required: [] },
          },
        },
      });
    });
    afterAll(() => h.stop());

    it('runs commands as the workspace uid and the doctor says there is no sandbox', async () => {
      const res = await h.api('/v1/chat', { json: { message: 'run [tool:shell {"command":"wc -c"}]' } });
      expect(((await res.json()) as { reply: string }).reply).toBe('tool said: 0\n[exit code 0]');
      const check = await doctorSandbox(h);
      expect(check.status).toBe('warn');
      expect(check.message).toContain('commands run on the host WITHOUT a sandbox');
    });
  });
});
