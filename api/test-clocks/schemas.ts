import { z } from 'zod';
import { MAX_UNIX_SECONDS } from '../http/common-schemas';

// Test clocks (v202607): times are Unix seconds, as in Stripe.

// The latest instant a clock may read is MAX_UNIX_SECONDS, 9999-12-31T23:59:59Z.
export const unixSeconds = z.number().int('must be a whole number of seconds').min(0).max(MAX_UNIX_SECONDS);

export const testClockCreateBody = z
  .object({
    frozen_time: unixSeconds.meta({ description: 'The time the clock starts at (Unix seconds): every customer on the clock lives at this time.' }),
    name: z.string().min(1).max(300).optional().meta({ description: 'A name of your choice, shown in lists.' }),
  })
  .strict();
export type TestClockCreateBody = z.infer<typeof testClockCreateBody>;

export const testClockAdvanceBody = z
  .object({
    frozen_time: unixSeconds.meta({ description: "The time to move the clock to (Unix seconds): after the clock's current time." }),
  })
  .strict();

export const testClockView = z
  .object({
    test_clock: z.string(),
    object: z.literal('test_clock'),
    frozen_time: z.number().int().meta({ description: 'The time the clock reads (Unix seconds). While it advances, the time it advances from.' }),
    status: z.enum(['ready', 'advancing']).meta({ description: '`advancing` while the subscriptions on the clock run what an advance made due; `ready` when they are done.' }),
    name: z.string().nullable(),
    created: z.number().int().meta({ description: 'When the clock was created (Unix seconds, real time).' }),
  })
  .strict();
export type TestClockView = z.infer<typeof testClockView>;
