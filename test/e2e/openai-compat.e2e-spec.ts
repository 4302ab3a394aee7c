import OpenAI from 'openai';
import { Harness, startHarness, TEST_TOKEN } from '../support/gateway-harness';

describe('POST /v1/chat/completions with the official OpenAI SDK', () => {
  let h: Harness;
  let client: OpenAI;
  beforeAll(async () => {
    // A second agent, so the model list has an agent beyond `default` to offer (and route to).
    h = await startHarness({ config: { agents: { coder: { system_prompt: 'You are the coder agent.' } } } });
    client = new OpenAI({ baseURL: `${h.gateway.url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0 });
  });
  afterAll(() => h.stop());

  it('answers a non-streamed completion with usage', async () => {
    const res = await client.chat.completions.create({ model: 'nestclaw', messages: [{ role: 'user', content: 'hello sdk' }] });
    expect(res.object).toBe('chat.completion');
    expect(res.choices[0].message.content).toBe('echo: hello sdk');
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('streams a completion chunk by chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'nestclaw',
      messages: [{ role: 'user', content: 'stream with the sdk' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: stream with the sdk');
    expect(chunks).toBeGreaterThan(3);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('keeps server-side history for the session named by `user`', async () => {
    const user = `sdk-user-${Date.now()}`;
    await client.chat.completions.create({ model: 'nestclaw', user, messages: [{ role: 'user', content: 'remember me' }] });
    await client.chat.completions.create({ model: 'nestclaw', user, messages: [{ role: 'user', content: 'second' }] });
    const sent = h.llm.requests[h.llm.requests.length - 1].body.messages.map((m) => m.content);
    expect(sent.slice(1)).toEqual(['remember me', 'echo: remember me', 'second']);
    const { messages } = (await (await h.api(`/v1/sessions/${user}/messages`)).json()) as { messages: unknown[] };
    expect(messages).toHaveLength(4);
  });

  it('uses the x-nestclaw-session header for the session', async () => {
    const sid = `hdr-${Date.now()}`;
    const res = await client.chat.completions.create(
      { model: 'nestclaw', messages: [{ role: 'user', content: 'via header' }] },
      { headers: { 'x-nestclaw-session': sid } },
    );
    expect(res.choices[0].message.content).toBe('echo: via header');
    expect((await h.api(`/v1/sessions/${sid}/messages`)).status).toBe(200);
  });

  it('passes a stateless client history as context', async () => {
    await client.chat.completions.create({
      model: 'nestclaw',
      messages: [
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer' },
        { role: 'user', content: 'follow-up' },
      ],
    });
    const sent = h.llm.requests[h.llm.requests.length - 1].body.messages.map((m) => m.content);
    expect(sent.slice(1)).toEqual(['earlier question', 'earlier answer', 'follow-up']);
  });

  it('answers 200 like OpenAI does', async () => {
    const res = await h.api('/v1/chat/completions', { json: { model: 'nestclaw', messages: [{ role: 'user', content: 'status?' }] } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-nestclaw-session')).toBeTruthy();
  });

  it('rejects an unknown model with a 400 the SDK surfaces', async () => {
    await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 400,
    });
  });

  it("lists the agents as models in OpenAI's list format", async () => {
    const res = await h.api('/v1/models');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string; object: string; created: number; owned_by: string }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toEqual(['nestclaw', 'nestclaw/coder', 'nestclaw/default']);
    for (const m of body.data) {
      expect(m).toEqual({ id: m.id, object: 'model', created: expect.any(Number) as number, owned_by: 'nestclaw' });
      expect(m.created).toBeLessThanOrEqual(Date.now() / 1000);
    }
  });

  it('lists models through the SDK, and every listed id is one chat completions accepts and routes', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['nestclaw', 'nestclaw/coder', 'nestclaw/default']);
    for (const model of ids) {
      const res = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `via ${model}` }] });
      expect(res.model).toBe(model);
      expect(res.choices[0].message.content).toBe(`echo: via ${model}`);
      const system = h.llm.requests[h.llm.requests.length - 1].body.messages[0].content;
      expect(String(system).includes('You are the coder agent.')).toBe(model === 'nestclaw/coder');
    }
  });

  it('retrieves one model by id through the SDK (slash encoded) and with the slash typed', async () => {
    expect(await client.models.retrieve('nestclaw/coder')).toMatchObject({ id: 'nestclaw/coder', object: 'model', owned_by: 'nestclaw' });
    expect(await client.models.retrieve('nestclaw')).toMatchObject({ id: 'nestclaw', object: 'model' });
    const typed = await h.api('/v1/models/nestclaw/coder');
    expect(typed.status).toBe(200);
    expect(((await typed.json()) as { id: string }).id).toBe('nestclaw/coder');
  });

  it('answers 404 not_found for a model it does not serve, naming the ones it does', async () => {
    await expect(client.models.retrieve('gpt-4o')).rejects.toMatchObject({ status: 404 });
    for (const path of ['/v1/models/gpt-4o', '/v1/models/nestclaw/writer']) {
      const res = await h.api(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 'not_found', message: expect.stringContaining('available: nestclaw, nestclaw/coder, nestclaw/default') as string },
      });
    }
  });

  it('rejects a bad token with 401', async () => {
    const bad = new OpenAI({ baseURL: `${h.gateway.url}/v1`, apiKey: 'nope', maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'nestclaw', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 401,
    });
  });
});
