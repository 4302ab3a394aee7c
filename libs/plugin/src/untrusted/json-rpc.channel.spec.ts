import { PassThrough } from 'node:stream';
import { JsonRpcChannel, RpcClosedError, RpcRemoteError, RpcTimeoutError } from './json-rpc.channel';

/** The channel against streams standing in for a child's stdin and stdout. */
function harness() {
  const toChild = new PassThrough();
  const fromChild = new PassThrough();
  const noise: string[] = [];
  const rpc = new JsonRpcChannel(toChild, fromChild, (l) => noise.push(l));
  const sent: { id: number; method: string }[] = [];
  toChild.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n').filter(Boolean)) sent.push(JSON.parse(line) as { id: number; method: string });
  });
  const answer = (msg: unknown) => fromChild.write(`${typeof msg === 'string' ? msg : JSON.stringify(msg)}\n`);
  const nextRequest = async () => {
    while (!sent.length) await new Promise((r) => setImmediate(r));
    return sent.shift()!;
  };
  return { rpc, noise, answer, nextRequest, fromChild };
}

describe('JSON-RPC over a plugin child’s stdio', () => {
  it('matches answers to requests by id, whatever else the child prints in between', async () => {
    const h = harness();
    const call = h.rpc.request('tools/call', { name: 'x' }, 5_000);
    const req = await h.nextRequest();
    expect(req).toMatchObject({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'x' } });
    h.answer('not json at all');
    h.answer('{"half": ');
    h.answer({ jsonrpc: '2.0', id: 424242, result: 'for nobody' });
    h.answer({ id: req.id, result: 'no jsonrpc field' });
    h.answer({ jsonrpc: '2.0', id: req.id, result: { content: '你好' } });
    await expect(call).resolves.toEqual({ content: '你好' });
    expect(h.rpc.noise).toBe(4);
    expect(h.noise[0]).toBe('not json at all');
  });

  it('drops a line over 1 MB without holding it, and goes on with the next', async () => {
    const h = harness();
    const call = h.rpc.request('initialize', {}, 5_000);
    const req = await h.nextRequest();
    h.fromChild.write('x'.repeat(1024 * 1024 + 10));
    h.fromChild.write('yyyy\n');
    h.answer({ jsonrpc: '2.0', id: req.id, result: 'ok' });
    await expect(call).resolves.toBe('ok');
    expect(h.rpc.noise).toBe(1);
  });

  it('turns an error answer, silence and a closed process into distinct errors', async () => {
    const h = harness();
    const refused = h.rpc.request('tools/call', {}, 5_000);
    h.answer({ jsonrpc: '2.0', id: (await h.nextRequest()).id, error: { code: -32602, message: 'bad input' } });
    await expect(refused).rejects.toEqual(new RpcRemoteError('bad input'));
    await expect(h.rpc.request('tools/call', {}, 20)).rejects.toBeInstanceOf(RpcTimeoutError);
    const pending = h.rpc.request('tools/call', {}, 5_000);
    h.rpc.close('the plugin process exited (code 3)');
    await expect(pending).rejects.toEqual(new RpcClosedError('the plugin process exited (code 3)'));
    await expect(h.rpc.request('tools/call', {}, 5_000)).rejects.toBeInstanceOf(RpcClosedError);
  });
});
