import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse, type File } from 'sh-syntax';
import { packageRoot } from '@nestclaw/common';

/** The slice of the WebAssembly global we use (the DOM lib, which declares it, is not in our tsconfig). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<unknown>;
  instantiate(module: unknown, imports: unknown): Promise<{ exports: unknown }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The Go runtime shim sh-syntax loads (vendors/wasm_exec.cjs defines `globalThis.Go`). */
interface GoRuntime {
  importObject: unknown;
  run(instance: unknown): Promise<void>;
}
type GoClass = new () => GoRuntime;

interface Exports {
  memory: { buffer: ArrayBuffer };
  wasmAlloc(size: number): number;
  wasmFree(pointer: number): void;
  process(...args: (number | boolean)[]): number;
}

/** Found by walking up from the install folder (no require.resolve: the webpack bundle rewrites it). */
function findWasm(): string | undefined {
  for (let dir = packageRoot(); ; dir = dirname(dir)) {
    const p = join(dir, 'node_modules', 'sh-syntax', 'main.wasm');
    if (existsSync(p)) return p;
    if (dirname(dir) === dir) return undefined;
  }
}
const WASM_PATH = findWasm();

/**
 * An instance is replaced after this many parses or bytes parsed: its TinyGo heap is not meant to
 * live forever (measured here: an instance fails inside its GC after 190–310 KB of 270 B–2.7 KB
 * inputs; 32 KB keeps a 6× margin). A failing instance is dropped and the parse retried once.
 */
const PARSES_PER_INSTANCE = 1000;
const BYTES_PER_INSTANCE = 32 * 1024;
const LANG_BASH = 0;

let compiled: Promise<unknown> | undefined;
let current: { exports: Promise<Exports>; uses: number; bytes: number } | undefined;
let spare: Promise<Exports> | undefined;
/** Parses run one at a time: the Go instance is single-threaded and shared. */
let queue: Promise<unknown> = Promise.resolve();

async function instantiate(): Promise<Exports> {
  compiled ??= readFile(WASM_PATH!).then((bytes) => wasm.compile(bytes));
  const Go = (globalThis as unknown as { Go: GoClass }).Go;
  const go = new Go();
  const instance = (await wasm.instantiate(await compiled, go.importObject)) as { exports: Exports };
  void go.run(instance);
  return instance.exports;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Calls sh-syntax's WASM `process` export directly on a long-lived instance: the module is compiled
 * once and instantiated once per PARSES_PER_INSTANCE parses (sh-syntax's own `parse` compiles and
 * starts a Go runtime per call, 20–300 ms each on a busy host; this is well under a millisecond).
 */
async function parseWithInstance(source: string, retried = false): Promise<File> {
  const size = Buffer.byteLength(source);
  if (!current || current.uses >= PARSES_PER_INSTANCE || (current.uses > 0 && current.bytes + size > BYTES_PER_INSTANCE)) {
    // Take the spare started in the background, and start the next one: no check waits for a start-up.
    current = { exports: spare ?? instantiate(), uses: 0, bytes: 0 };
    spare = instantiate();
    spare.catch(() => (spare = undefined));
  }
  current.uses++;
  current.bytes += size;
  const x = await current.exports;
  try {
    return runParse(x, source);
  } catch (e) {
    if (!(e instanceof Error && e.name === 'RuntimeError')) throw e;
    current = undefined; // a WebAssembly trap: this instance is done for
    if (retried) throw new Error('the shell parser failed');
    return parseWithInstance(source, true);
  }
}

function runParse(x: Exports, source: string): File {
  const put = (bytes: Uint8Array) => {
    const p = x.wasmAlloc(bytes.byteLength);
    new Uint8Array(x.memory.buffer).set(bytes, p);
    return p;
  };
  const path = encoder.encode('');
  const text = encoder.encode(source);
  const stopAt = encoder.encode('');
  const pp = put(path);
  const tp = put(text);
  const sp = put(stopAt);
  // Arguments as in sh-syntax's processor: parse (no print), keep comments, bash, no recovery.
  const result = x.process(
    ...[pp, path.byteLength, path.byteLength, tp, text.byteLength, text.byteLength],
    ...[false, true, LANG_BASH, sp, stopAt.byteLength, stopAt.byteLength, 0, false, 2, true, true, true, false, false, false, false],
  );
  x.wasmFree(pp);
  x.wasmFree(tp);
  x.wasmFree(sp);
  const out = new Uint8Array(x.memory.buffer).subarray(result);
  const json = decoder.decode(out.subarray(0, out.indexOf(0)));
  if (!json.startsWith('{"') || !json.endsWith('}')) throw new Error(json || 'the shell parser failed');
  const { file, parseError, message } = JSON.parse(json) as { file: File; parseError?: { Text: string }; message?: string };
  if (parseError) throw new Error(parseError.Text);
  if (message) throw new Error(message);
  return file;
}

/** Parses bash source into sh-syntax's (position-only) AST; throws on a syntax error. */
export function parseShell(source: string): Promise<File> {
  if (!WASM_PATH) return parse(source);
  const run = queue.then(() => parseWithInstance(source));
  queue = run.catch(() => undefined);
  return run;
}
