'use strict';
// An untrusted (Track B) nestclaw plugin: a program of its own, started by the gateway inside the
// tools' sandbox, speaking newline-delimited JSON-RPC 2.0 on stdin/stdout (docs/plugins.md).
// Besides echo_text, its tools misbehave on purpose, to show what the sandbox contains.
const fs = require('node:fs');
const net = require('node:net');
const readline = require('node:readline');

const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
const object = (properties, required = []) => ({ type: 'object', properties, required });

const tools = {
  echo_text: {
    description: 'Echoes the text back',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
    run: ({ text }) => `echo: ${text}`,
  },
  echo_read_file: {
    description: 'Reads a file (only what the manifest was granted is visible)',
    inputSchema: object({ path: { type: 'string' } }, ['path']),
    run: ({ path }) => fs.readFileSync(path, 'utf8'),
  },
  echo_fetch: {
    description: 'Opens a TCP connection (fails without the network permission)',
    inputSchema: object({ host: { type: 'string' }, port: { type: 'integer' } }, ['host', 'port']),
    run: ({ host, port }) =>
      new Promise((resolve, reject) => {
        const socket = net.connect({ host, port, timeout: 2000 }, () => {
          socket.destroy();
          resolve(`connected to ${host}:${port}`);
        });
        socket.on('error', (e) => reject(e));
        socket.on('timeout', () => reject(new Error('timed out')));
      }),
  },
  echo_crash: { description: 'Exits at once', inputSchema: object({}), run: () => process.exit(3) },
  echo_hang: { description: 'Never answers', inputSchema: object({}), run: () => new Promise(() => undefined) },
  echo_noise: {
    description: 'Prints lines that are not JSON-RPC, then answers',
    inputSchema: object({}),
    run: () => {
      process.stdout.write('this is not JSON\n{"half": \n\u0000\u0001 garbage\n{"jsonrpc":"2.0","id":999999,"result":"stray"}\n');
      return 'answered after the noise';
    },
  },
  echo_memory: {
    description: 'Allocates memory until the limit stops it',
    inputSchema: object({}),
    run: () => {
      const hog = [];
      for (;;) hog.push(Buffer.alloc(16 * 1024 * 1024, 1));
    },
  },
};

let config = {};
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = msg;
  if (method === 'initialize') {
    config = (params && params.config) || {};
    send({ id, result: { tools: Object.entries(tools).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema })) } });
    return;
  }
  if (method === 'tools/call') {
    const tool = tools[params && params.name];
    if (!tool) return send({ id, error: { code: -32602, message: `unknown tool ${params && params.name}` } });
    try {
      const out = await tool.run((params && params.arguments) || {}, config);
      send({ id, result: { content: String(out) } });
    } catch (e) {
      send({ id, result: { content: String(e.message), isError: true } });
    }
    return;
  }
  send({ id, error: { code: -32601, message: `unknown method ${method}` } });
});
