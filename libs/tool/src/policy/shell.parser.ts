import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { getProcessor, parse, type File, type GetWebAssemblyInstance } from 'sh-syntax';
import { packageRoot } from '@nestclaw/common';

/** The slice of the WebAssembly global we use (the DOM lib, which declares it, is not in our tsconfig). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<unknown>;
  instantiate(module: unknown, imports: unknown): Promise<unknown>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: Promise<unknown> | undefined;

/**
 * sh-syntax's own `parse` re-compiles its 750 KB WASM module on every call; compile it once and
 * only instantiate per parse (each parse still gets a fresh Go runtime, as the library expects).
 */
const instantiate = (async (imports: unknown) => {
  compiled ??= readFile(WASM_PATH!).then((bytes) => wasm.compile(bytes));
  return wasm.instantiate(await compiled, imports);
}) as GetWebAssemblyInstance;

/** Found by walking up from the install folder (no require.resolve: the webpack bundle rewrites it). */
function findWasm(): string | undefined {
  for (let dir = packageRoot(); ; dir = dirname(dir)) {
    const p = join(dir, 'node_modules', 'sh-syntax', 'main.wasm');
    if (existsSync(p)) return p;
    if (dirname(dir) === dir) return undefined;
  }
}
const WASM_PATH = findWasm();

const processor = WASM_PATH ? getProcessor(instantiate) : undefined;

/** Parses bash source into sh-syntax's (position-only) AST; throws on a syntax error. */
export function parseShell(source: string): Promise<File> {
  return processor ? processor(source) : parse(source);
}
