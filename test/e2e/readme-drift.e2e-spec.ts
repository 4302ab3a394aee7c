import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigService } from '@nestclaw/config';
import { SCOPES } from '@nestclaw/security';
import { ToolRegistry } from '@nestclaw/tool';
import { Harness, startHarness } from '../support/gateway-harness';
import { nestRoutes } from '../support/route-table';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The text of one `## ` section of the README. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

const NUMBERS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
];
const sorted = (xs: Iterable<string>) => [...xs].sort();

/** The README's counts and lists, checked against what the running gateway actually has. */
describe('README matches the gateway it describes', () => {
  let h: Harness;
  let tools: string[];
  beforeAll(async () => {
    h = await startHarness();
    tools = h.gateway.app.get(ToolRegistry).names();
  });
  afterAll(() => h.stop());

  it('lists every registered tool in the tools table, and no other', () => {
    const rows = [...section('Tools, sandbox and approvals').matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(sorted(rows)).toEqual(sorted(tools));
  });

  it('counts the tools and names the ones an agent does not get by default', () => {
    const m = /\(default: all ([a-z]+) above except ((?:`[a-z_]+`(?:, | and )?)+)/.exec(section('Tools, sandbox and approvals'));
    expect(m).not.toBeNull();
    expect(NUMBERS.indexOf(m![1])).toBe(tools.length);
    const optIn = [...m![2].matchAll(/`([a-z_]+)`/g)].map((x) => x[1]);
    const defaults = h.gateway.app.get(ConfigService).get().agents.default.tools;
    expect(sorted(defaults)).toEqual(sorted(tools.filter((t) => !optIn.includes(t))));
  });

  it('names every scope in the scopes sentence, and how many the owner token holds', () => {
    const m = /^Scopes: ([\s\S]*?)\n\n/m.exec(README);
    expect(m).not.toBeNull();
    for (const scope of SCOPES) expect(m![1]).toContain(`\`${scope}\` (`);
    expect(m![1]).toContain(`The owner token holds all ${NUMBERS[SCOPES.length]}`);
  });

  it('documents only routes that exist, the OpenAI-compatible ones among them', () => {
    const param = (path: string) => path.replace(/:[A-Za-z]+/g, ':param');
    const documented = [...section('API reference').matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`?]+)[^`]*` \|/gm)]
      .map((m) => `${m[1]} ${param(m[2])}`)
      .filter((r) => r !== 'GET /ws'); // the WebSocket upgrade, not an HTTP route
    const routes = new Set(nestRoutes(h).map((r) => `${r.method} ${param(r.path)}`));
    expect(documented.filter((r) => !routes.has(r))).toEqual([]);
    for (const r of ['GET /v1/models', 'GET /v1/models/:param', 'POST /v1/chat/completions']) expect(documented).toContain(r);
  });
});
