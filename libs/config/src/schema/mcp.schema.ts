import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { duration, secret } from './field-types';

/**
 * Server names become the prefix of every tool name the model sees (`<server>__<tool>`), and OpenAI
 * allows only [a-zA-Z0-9_-] there: lower-case letters, digits and `-`, no `_`, so the first `__` always
 * ends the server's part.
 */
const serverName = /^[a-z][a-z0-9-]{0,23}$/;
/** Environment variable names as a shell writes them. */
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

const common = {
  /** Longest a call (or connecting) may take before it fails as a tool error; the turn goes on. */
  timeout: duration.default(60_000),
  /** The server's tools to offer (their names as the server gives them); `["*"]` all of them. */
  tools: z.array(z.string().min(1)).min(1).default(['*']),
  /**
   * Which calls wait for a human: `true` every call (the default: an MCP tool can do anything its
   * server can), `false` only what `tools.approval.required` lists, or a list of the server's tool names.
   */
  require_approval: z.union([z.boolean(), z.array(z.string().min(1))]).default(true),
};

const stdioServer = z.strictObject({
  transport: z.literal('stdio'),
  /** The program, run without a shell (arguments are passed as a list). */
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /**
   * The server's whole environment besides PATH and HOME: it never inherits the gateway's. Give
   * secrets by reference, `GITHUB_TOKEN: ${GITHUB_TOKEN}`, so the file holds no secret.
   */
  env: z.record(z.string().regex(envName, { message: 'an environment variable name' }), secret(z.string())).default({}),
  cwd: z
    .string()
    .refine((d) => isAbsolute(d), { message: 'must be an absolute path' })
    .optional(),
  ...common,
});

const httpServer = z.strictObject({
  transport: z.literal('http'),
  /** The Streamable HTTP endpoint (no credentials in it: use `bearer_token` or `headers`). */
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string().min(1), secret(z.string())).default({}),
  /** Sent as `Authorization: Bearer …`; write `${VAR}` to take it from the environment. */
  bearer_token: secret(z.string().min(1)).optional(),
  ...common,
});

const serverSchema = z.discriminatedUnion('transport', [stdioServer, httpServer]);

/** MCP servers whose tools agents may call (docs/mcp.md): name → how to reach it. */
export const mcpSchema = z
  .strictObject({
    servers: z
      .record(
        z
          .string()
          .regex(serverName, { message: 'MCP server names are lower-case letters, digits and - (up to 24), starting with a letter' }),
        serverSchema,
      )
      .default({}),
  })
  .prefault({});

export type McpServerConfig = z.output<typeof serverSchema>;
