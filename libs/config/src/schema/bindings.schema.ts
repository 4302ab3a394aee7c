import { z } from 'zod';

const bindingSchema = z.strictObject({
  agent: z.string().min(1),
  match: z
    .strictObject({
      channel: z.string().optional(),
      account: z.string().optional(),
      peer: z
        .strictObject({ kind: z.enum(['dm', 'group', 'channel']), id: z.union([z.string(), z.number()]).transform(String) })
        .optional(),
      guild: z.union([z.string(), z.number()]).transform(String).optional(),
      team: z.string().optional(),
    })
    .prefault({}),
});
export type BindingConfig = z.output<typeof bindingSchema>;

export const bindingsSchema = z.array(bindingSchema).default([]);
