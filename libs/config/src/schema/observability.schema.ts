import { z } from 'zod';

export const observabilitySchema = z
  .strictObject({
    /**
     * Where this deployment's Grafana is (e.g. `http://127.0.0.1:3001` with docker compose): the Settings
     * page links to it. A link for people, so no credentials in it.
     */
    grafana_url: z
      .url({ protocol: /^https?$/, message: 'an http(s) URL' })
      // (the URL check above fails alone on a non-URL: this one then has nothing to say)
      .refine((u) => !URL.canParse(u) || new URL(u).username + new URL(u).password === '', 'a URL without a user or password in it')
      .optional(),
    metrics: z
      .strictObject({
        /** Serve /metrics on the gateway port (token with the `metrics` scope, or the owner token). */
        enabled: z.boolean().default(true),
        /** Also serve /metrics on a separate listener (still token-protected), e.g. for a sidecar. */
        listener: z.strictObject({ host: z.string().min(1).default('127.0.0.1'), port: z.number().int().min(0).max(65535) }).optional(),
      })
      .prefault({}),
    tracing: z
      .strictObject({
        /** Record prompts and replies on spans (gen_ai.input/output.messages). Off: no message content leaves the process. */
        capture_content: z.boolean().default(false),
      })
      .prefault({}),
    logs: z
      .strictObject({
        /** auto: pretty on a terminal, JSON otherwise. */
        format: z.enum(['auto', 'json', 'pretty']).default('auto'),
        /** Extra object paths to redact in structured log fields (pino redact syntax). */
        redact: z.array(z.string()).default([]),
      })
      .prefault({}),
  })
  .prefault({});
