/**
 * How an MCP tool is named to the model: `<server>__<tool>`. OpenAI allows only [a-zA-Z0-9_-] (64 at
 * most) in a function name, and Anthropic and Gemini accept that too, so a dot (`server.tool`, the
 * issue's spelling) cannot be the wire name; server names have no `_`, so the first `__` always ends
 * the server's part. An agent's `tools` list may say `server.tool`, `server__tool`, or `server.*` /
 * `server__*` for all of the server's tools (including ones a list change adds later).
 */
export const SEPARATOR = '__';
const MAX_NAME = 64;

/** The wire name, or undefined when the server's tool name cannot become one (too long after the prefix). */
export function wireName(server: string, tool: string): string | undefined {
  const name = `${server}${SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return name.length <= MAX_NAME ? name : undefined;
}

/** What one agent list entry asks of a server: all its tools, one (by wire name), or nothing of MCP's. */
export type Selection = { server: string; all: true } | { server: string; all: false; wire: string } | undefined;

export function parseEntry(entry: string): Selection {
  const m = /^([a-z][a-z0-9-]*)(?:\.|__)(.+)$/.exec(entry);
  if (!m) return undefined;
  const [, server, rest] = m;
  if (rest === '*') return { server, all: true };
  const wire = wireName(server, rest);
  return wire ? { server, all: false, wire } : undefined;
}
