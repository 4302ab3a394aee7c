import { z } from 'zod';
import { duration } from './field-types';

const rateSchema = z.strictObject({ limit: z.number().int().positive(), window: duration });

export const securitySchema = z
  .strictObject({
    rate_limit: z
      .strictObject({
        per_sender: rateSchema.prefault({ limit: 20, window: 60_000 }),
        per_token: rateSchema.prefault({ limit: 120, window: 60_000 }),
        /** Browser sign-in attempts (POST /v1/auth/session) per client address, right or wrong. */
        sign_in: rateSchema.prefault({ limit: 10, window: 60_000 }),
      })
      .prefault({}),
  })
  .prefault({});
