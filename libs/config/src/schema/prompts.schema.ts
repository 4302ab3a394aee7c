import { z } from 'zod';

export const promptsSchema = z
  .strictObject({
    system: z.string().default('You are nestclaw, a helpful personal assistant. Answer concisely. Use tools only when they help.'),
  })
  .prefault({});
