import type { OperationExample } from '../examples';
import type { ErrorCatalogEntry } from '../error-catalog';

// Test clocks: Dar Al Qahwa tries Layla's monthly subscription on a clock before going live. The clock starts
// on 14 August 2026 at 09:00 UTC and is advanced a month, which runs the first renewal.

const CLOCK = 'clock_eu_yZkrqGN0lqwWJOz6d7Ji8i';
const CLOCK_OLD = 'clock_eu_2UKAA27uanlE62CJ89YWf4';
const REQUEST_ID = 'req_7kQp2VxN9cLm4TbRw8Zd3H';

/** 2026-08-14T09:00:00Z, 2026-09-14T09:00:00Z, and when the clock was made (real time). */
const AUG_14 = 1786698000;
const SEP_14 = 1789376400;
const CREATED = 1786697712;

const clock = { test_clock: CLOCK, object: 'test_clock', frozen_time: AUG_14, status: 'ready', name: 'Monthly renewal trial', created: CREATED };

const error = (code: string, message: string, param?: string) => ({
  error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}), request_id: REQUEST_ID },
});

export const EXAMPLES: Record<string, OperationExample> = {
  'POST /v202607/test-clocks': {
    summary: 'A clock at 14 August 2026, 09:00 UTC',
    body: { frozen_time: AUG_14, name: 'Monthly renewal trial' },
    response: { status: 201, body: clock },
  },
  'GET /v202607/test-clocks': {
    summary: 'Your clocks, newest first',
    query: { limit: '2' },
    response: {
      status: 200,
      body: {
        data: [clock, { test_clock: CLOCK_OLD, object: 'test_clock', frozen_time: 1785542400, status: 'ready', name: null, created: 1786638000 }],
        has_more: false,
      },
    },
  },
  'GET /v202607/test-clocks/:test_clock': {
    summary: 'Retrieve a clock',
    params: { test_clock: CLOCK },
    response: { status: 200, body: clock },
  },
  'POST /v202607/test-clocks/:test_clock/advance': {
    summary: 'Advance a month: the first renewal runs (invoice, charge, events) before the answer',
    params: { test_clock: CLOCK },
    body: { frozen_time: SEP_14 },
    response: { status: 200, body: { ...clock, frozen_time: SEP_14 } },
    more: [
      { status: 200, summary: 'The subscriptions took longer than the wait: retrieve the clock until it is ready', body: { ...clock, status: 'advancing' } },
      {
        status: 400,
        summary: "A time that is not after the clock's",
        body: error('test_clock_time_backwards', "frozen_time must be after the clock's current time (1789376400)", 'frozen_time'),
      },
      {
        status: 400,
        summary: 'Further than two intervals of the shortest subscription on the clock',
        body: error('test_clock_advance_too_far', 'frozen_time may be at most 1791968400: one advance goes at most two intervals of the shortest subscription on the clock; advance in steps', 'frozen_time'),
      },
      { status: 404, summary: 'Unknown or deleted clock', body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such test clock: '${CLOCK_OLD}'`, param: 'test_clock', request_id: REQUEST_ID } } },
      { status: 409, summary: 'An advance is still running', body: error('test_clock_advancing', 'The test clock is still advancing: advance it again once its status is ready') },
    ],
  },
  'DELETE /v202607/test-clocks/:test_clock': {
    summary: 'Delete a clock',
    params: { test_clock: CLOCK_OLD },
    response: { status: 200, body: { test_clock: CLOCK_OLD, deleted: true } },
  },
};

export const ERRORS: ErrorCatalogEntry[] = [
  {
    code: 'test_clock_advancing',
    statuses: [409],
    meaning: 'The test clock is still advancing: the subscriptions on it are running what the last advance made due.',
    action: 'Retrieve the clock until its status is `ready`, then advance it again.',
  },
  {
    code: 'test_clock_time_backwards',
    statuses: [400],
    meaning: "The `frozen_time` given is not after the test clock's current time: a clock only moves forward.",
    action: "Give a time after the clock's `frozen_time`, or create a new clock for an earlier time.",
  },
  {
    code: 'test_clock_advance_too_far',
    statuses: [400],
    meaning:
      'The `frozen_time` given is more than two intervals of the shortest subscription on the clock ahead of its time (two years when no subscription is on it): one advance is bounded, as in Stripe.',
    action: 'Advance in steps, each within the bound the message gives, waiting for `ready` between them.',
  },
];
