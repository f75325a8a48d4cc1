import { z } from 'zod';
import { listQuerySchema } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { requireMitClaim } from '../cards-mit/service';
import { testClockAdvanceBody, testClockCreateBody, testClockView as testClockViewSchema } from './schemas';
import { advanceTestClock, createTestClock, deleteTestClock, getTestClock, listTestClocks, testClockView } from './service';

const tags = ['Billing: test clocks'];
const params = z.object({ test_clock: z.string() }).strict();
const versions = ['v202607'] as const;

export const testClockRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/test-clocks',
    versions,
    auth: 'secret',
    summary: 'Create a test clock: customers created on it live at its time',
    replaysIdempotencyKeyHeader: true,
    description:
      'A customer created with `test_clock` lives on the clock: every billing time of its subscriptions (renewals, trials, dunning) follows the clock instead of real time, and moves only when the clock is advanced.',
    tags,
    body: testClockCreateBody,
    responses: { 201: { description: 'Created, `ready` at `frozen_time`', schema: testClockViewSchema } },
    handler: async ({ body, auth, deps }) => ({ status: 201, body: testClockView(await createTestClock(deps, auth, body)) }),
  }),
  route({
    method: 'get',
    path: '/test-clocks',
    versions,
    auth: 'secret',
    summary: 'List test clocks, newest first',
    tags,
    query: listQuerySchema('clock', {}),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(testClockViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { data, has_more } = await listTestClocks(deps, auth.tenantId, query);
      return { status: 200, body: { data: data.map((r) => testClockView(r)), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/test-clocks/:test_clock',
    versions,
    auth: 'secret',
    summary: 'Retrieve a test clock',
    tags,
    params,
    responses: { 200: { description: 'The clock', schema: testClockViewSchema }, 404: { description: 'Unknown or deleted' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: testClockView(await getTestClock(deps, auth.tenantId, p.test_clock)) }),
  }),
  route({
    method: 'post',
    path: '/test-clocks/:test_clock/advance',
    versions,
    auth: 'secret',
    summary: 'Advance a test clock; answers once the subscriptions on it have run what became due',
    description:
      'Moves the clock to `frozen_time`: every subscription on the clock runs what is due up to it, in order (renewals with their invoices, charges, events and dunning). One advance goes at most two intervals of the shortest subscription on the clock ahead (two years when none is on it), as in Stripe; advance in steps to go further. The answer waits for that (up to 30 seconds by default): `ready` at the new time, or `advancing` when the wait ran out; retrieve the clock until it is `ready`.',
    tags,
    params,
    body: testClockAdvanceBody,
    responses: {
      200: { description: 'The clock: `ready` at the new time, or still `advancing`', schema: testClockViewSchema },
      400: {
        description:
          "`test_clock_time_backwards`: `frozen_time` is not after the clock's time; `test_clock_advance_too_far`: it is more than two intervals of the shortest subscription on the clock ahead (two years when none is on it)",
      },
      403: { description: '`missing_claim`: an advance runs renewals, which charge saved cards: it needs a secret key with the claim `cards.mit` (for a clock with no subscription too)' },
      404: { description: 'Unknown or deleted' },
      409: { description: '`test_clock_advancing`: an advance is still running' },
    },
    handler: async ({ params: p, body, auth, deps }) => {
      // Renewals charge saved cards, and a clock's subscriptions may be on live connectors: as a subscription's
      // create, this needs the claim, else a claimless key could charge a card again with every advance.
      requireMitClaim(auth);
      return { status: 200, body: await advanceTestClock(deps, auth.tenantId, p.test_clock, body.frozen_time) };
    },
  }),
  route({
    method: 'delete',
    path: '/test-clocks/:test_clock',
    versions,
    auth: 'secret',
    summary: 'Delete a test clock',
    description:
      "Its subscriptions are canceled at once, at the clock's time, with their `subscription.canceled` (their time would never move again). Its customers stay; a new subscription of theirs is refused.",
    tags,
    params,
    responses: { 200: { description: 'Deleted', schema: z.object({ test_clock: z.string(), deleted: z.literal(true) }) }, 404: { description: 'Unknown or deleted' } },
    handler: async ({ params: p, auth, deps }) => {
      await deleteTestClock(deps, auth.tenantId, p.test_clock);
      return { status: 200, body: { test_clock: p.test_clock, deleted: true } };
    },
  }),
];
