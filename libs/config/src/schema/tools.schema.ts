import { z } from 'zod';
import { duration, secret } from './field-types';

const searchBackendSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('searxng'), url: z.url() }),
  z.strictObject({ kind: z.literal('brave'), api_key: secret(z.string().min(1)), url: z.url().default('https://api.search.brave.com') }),
  z.strictObject({ kind: z.literal('tavily'), api_key: secret(z.string().min(1)), url: z.url().default('https://api.tavily.com') }),
]);

/** An owner-written spec for a program the exec policy should admit (see docs/configuration.md). */
const programSpecSchema = z.strictObject({
  options: z
    .array(
      z
        .strictObject({
          short: z
            .string()
            .regex(/^[A-Za-z0-9]$/)
            .optional(),
          long: z
            .string()
            .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/)
            .optional(),
          /** none: a flag; text: takes a value that is data; path: takes a file name (kept inside the workspace). */
          value: z.enum(['none', 'text', 'path']).default('none'),
        })
        .refine((o) => o.short || o.long, { message: 'an option needs short or long' }),
    )
    .default([]),
  /** inputs: every operand is a file to read; text: none is; text-then-inputs: the first is data (a pattern). */
  operands: z.enum(['inputs', 'text', 'text-then-inputs']).default('inputs'),
  max_operands: z.number().int().min(0).optional(),
});

/** What the owner must write to run commands on the host without a sandbox. */
export const NATIVE_ACKNOWLEDGEMENT = 'commands run on the host without a sandbox';

export const toolsSchema = z
  .strictObject({
    /**
     * auto picks the strongest available sandbox: docker, then bubblewrap. With none, the shell tool
     * is not offered (file tools keep working through their own path checks). native runs commands
     * on the host: only with `native.acknowledge` set to NATIVE_ACKNOWLEDGEMENT.
     */
    sandbox: z.enum(['auto', 'docker', 'bubblewrap', 'native']).default('auto'),
    /** When no real sandbox (docker or bubblewrap) is available, disable the file tools too. */
    require_sandbox: z.boolean().default(false),
    native: z
      .object({
        /** Must equal "commands run on the host without a sandbox" for tools.sandbox: native. */
        acknowledge: z.string().optional(),
      })
      .prefault({}),
    exec: z
      .strictObject({
        security: z.enum(['deny', 'allowlist', 'full']).default('allowlist'),
        /** Programs without a spec, allowed on top of the default ones: each call needs approval and says so. */
        allow: z.array(z.string().regex(/^[A-Za-z0-9._+-]+$/)).default([]),
        /** Programs the owner adds with a spec of their options and operands: checked like the defaults. */
        programs: z.record(z.string().regex(/^[A-Za-z0-9._+-]+$/), programSpecSchema).default({}),
        timeout: duration.default(30_000),
        max_output_bytes: z.number().int().positive().default(65_536),
        /** Let shell commands reach the network (off: no network namespace at all). */
        network: z.boolean().default(false),
      })
      .prefault({}),
    limits: z
      .strictObject({
        memory_mb: z.number().int().min(16).default(256),
        pids: z.number().int().min(4).default(64),
        cpus: z.number().positive().default(1),
        /** Disk a workspace may use; a run that grows it beyond this is stopped. */
        workspace_mb: z.number().int().min(1).default(1024),
      })
      .prefault({}),
    bubblewrap: z
      .object({
        /** The bwrap binary (apt-get install bubblewrap puts it here). */
        path: z.string().min(1).default('/usr/bin/bwrap'),
      })
      .prefault({}),
    docker: z
      .strictObject({
        image: z.string().min(1).default('debian:bookworm-slim'),
        socket: z.string().optional(),
      })
      .prefault({}),
    approval: z
      .strictObject({
        required: z.array(z.string()).default(['shell', 'file_write', 'http_request']),
        /** http_request with these methods never needs approval. */
        safe_http_methods: z.array(z.string()).default(['GET', 'HEAD']),
        timeout: duration.default(600_000),
      })
      .prefault({}),
    http: z
      .strictObject({
        /** Hosts http_request may reach even when they resolve to private addresses. */
        allow_hosts: z.array(z.string()).default([]),
        timeout: duration.default(20_000),
        max_redirects: z.number().int().min(0).max(10).default(5),
      })
      .prefault({}),
    search: z
      .strictObject({
        backend: searchBackendSchema.optional(),
        timeout: duration.default(15_000),
      })
      .prefault({}),
    hooks: z
      .strictObject({
        /** PreToolUse rules: refuse a call whose input (as JSON) matches the pattern (a regular expression). */
        block: z.array(z.strictObject({ tool: z.string().default('*'), pattern: z.string(), reason: z.string().optional() })).default([]),
        /** PostToolUse rules: replace matches in tool output with [redacted]. */
        redact: z.array(z.strictObject({ tool: z.string().default('*'), pattern: z.string() })).default([]),
      })
      .prefault({}),
  })
  .prefault({})
  .superRefine((t, ctx) => {
    if (t.sandbox !== 'native') return;
    if (t.native.acknowledge !== NATIVE_ACKNOWLEDGEMENT)
      ctx.addIssue({
        code: 'custom',
        path: ['native', 'acknowledge'],
        message: `tools.sandbox: native runs commands on the host; set tools.native.acknowledge to "${NATIVE_ACKNOWLEDGEMENT}" to accept that, or install bubblewrap / start Docker`,
      });
    if (!t.exec.network)
      ctx.addIssue({
        code: 'custom',
        path: ['exec', 'network'],
        message:
          'tools.exec.network: false cannot be enforced by the native executor (it has no network namespace); set it to true to accept that, or use bubblewrap or Docker',
      });
  });
