import { z } from 'zod';

export const sessionSchema = z
  .strictObject({
    dm_scope: z.enum(['main', 'per-peer', 'per-channel-peer']).default('per-channel-peer'),
    /** person → ["telegram:111", "discord:222"]: one person's DMs share a session across platforms. */
    identity_links: z.record(z.string(), z.array(z.string())).default({}),
  })
  .prefault({});
