import { startHarness, Harness } from '../../support/gateway-harness';
import { pairedToken } from './memory-spec.support';

interface Listed {
  memories: { id: string; content: string; source: string; agentId: string; superseded: boolean; createdAt: string }[];
  next: string | null;
}

/** GET /v1/memory: browsing a person's memories without a query (the control UI's Memory page). */
describe('listing memories without a query', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { memory: { transcripts: false, files: { enabled: false } } } });
  }, 60_000);
  afterAll(() => h.stop());

  const list = async (query: string, token?: string) => {
    const res = token
      ? await fetch(`${h.gateway.url}/v1/memory${query}`, { headers: { authorization: `Bearer ${token}` } })
      : await h.api(`/v1/memory${query}`);
    return { status: res.status, body: (await res.json()) as Listed & { error?: { code: string } } };
  };
  const store = async (content: string, agentId = 'default') =>
    ((await (await h.api('/v1/memory', { json: { content, agentId } })).json()) as { id: string }).id;

  it('pages the owner’s memories for one agent, newest first, with no repeat and no gap', async () => {
    const ids: string[] = [];
    for (const content of ['first list fact', '第二条记忆', 'third list fact']) ids.push(await store(content, 'lister'));
    await store('another agent’s fact', 'other');

    const first = await list('?agentId=lister&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.memories.map((m) => m.content)).toEqual(['third list fact', '第二条记忆']);
    expect(first.body.memories[0]).toMatchObject({ id: ids[2], source: 'api', agentId: 'lister', superseded: false });
    expect(first.body.next).toBe(ids[1]);

    const second = await list(`?agentId=lister&limit=2&before=${first.body.next}`);
    expect(second.body.memories.map((m) => m.id)).toEqual([ids[0]]);
    expect(second.body.next).toBeNull();
  });

  it("shows a paired token only its own person's memories, and refuses it another person's", async () => {
    const token = await pairedToken(h, 'lister-phone');
    const ownersId = await store('the owner’s private list fact');
    const res = await fetch(`${h.gateway.url}/v1/memory`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'the phone’s own fact' }),
    });
    expect(res.status).toBe(201);

    const own = await list('', token);
    expect(own.body.memories.map((m) => m.content)).toEqual(['the phone’s own fact']);
    // The owner's memory as a cursor gives the token nothing of the owner's.
    expect((await list(`?before=${ownersId}`, token)).body.memories).toEqual([]);
    const other = await list('?scope=owner', token);
    expect(other.status).toBe(403);
  });

  it('refuses a cursor that is not a memory id and a limit out of range, with a clear 400', async () => {
    const bad = await list('?before=not-an-id');
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('invalid_request');
    expect((await list('?limit=101')).status).toBe(400);
  });

  it('is described in /v1/openapi.json with its query parameters', async () => {
    const doc = (await (await h.api('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const op = doc.paths['/v1/memory'].get;
    expect(op.parameters?.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'before', 'scope', 'agentId']),
    );
  });
});
