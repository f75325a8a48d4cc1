import {
  attemptOffsetsMs,
  DEFAULT_RETRY_PLAN,
  DELIVERY_WINDOW_MS,
  formatDuration,
  honoursRetryAfter,
  nextRetryDelay,
  outcomeOfStatus,
  parseRetryAfter,
  retryPlan,
} from '../../../domain/webhook-schedule';

const s = (n: number) => n * 1000;
const m = (n: number) => s(n * 60);
const h = (n: number) => m(n * 60);

describe('the default webhook schedule', () => {
  it('attempts at 0, 5s, 5m05s, 35m05s, 2h35m05s, 7h35m05s, 17h35m05s, 31h35m05s, 51h35m05s and last at exactly 3 days', () => {
    expect(attemptOffsetsMs(DEFAULT_RETRY_PLAN)).toEqual([
      0,
      s(5),
      m(5) + s(5),
      m(35) + s(5),
      h(2) + m(35) + s(5),
      h(7) + m(35) + s(5),
      h(17) + m(35) + s(5),
      h(31) + m(35) + s(5),
      h(51) + m(35) + s(5),
      h(72),
    ]);
  });

  it('shortens the 24 h wait so the tenth attempt does not pass the 3-day window', () => {
    const elapsed = h(51) + m(35) + s(5);
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 9, elapsedMs: elapsed })).toBe(h(72) - elapsed);
    expect(formatDuration(h(72) - elapsed)).toBe('20h24m55s');
  });

  it('stops after the tenth attempt', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 10, elapsedMs: h(72) })).toBeNull();
  });

  it('stops once the window has passed, whatever the schedule says', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 2, elapsedMs: DELIVERY_WINDOW_MS })).toBeNull();
  });

  it('measures each wait from the end of the failed attempt, so a slow receiver does not shorten it', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 1, elapsedMs: s(10) })).toBe(s(5));
  });
});

describe('Retry-After', () => {
  it('is a floor: a later Retry-After wins over the schedule', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 1, elapsedMs: 0, retryAfterMs: s(120) })).toBe(s(120));
  });

  it('never brings an attempt forward', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 3, elapsedMs: m(5), retryAfterMs: s(1) })).toBe(m(30));
  });

  it('ends the delivery when honouring it would pass the window', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 2, elapsedMs: h(71), retryAfterMs: h(2) })).toBeNull();
  });

  it('may take the attempt right to the end of the window', () => {
    expect(nextRetryDelay(DEFAULT_RETRY_PLAN, { attempt: 2, elapsedMs: h(70), retryAfterMs: h(2) })).toBe(h(2));
  });

  it('applies to 429 and 503 only', () => {
    expect([429, 503].every(honoursRetryAfter)).toBe(true);
    expect([500, 502, 301, 410, 200].some(honoursRetryAfter)).toBe(false);
  });

  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it.each([
    ['120', s(120)],
    [' 0 ', 0],
    ['Thu, 01 Jan 2026 12:05:00 GMT', m(5)],
    ['Thursday, 01-Jan-26 12:00:30 GMT', s(30)],
    ['Thu Jan  1 12:01:00 2026', m(1)],
    ['Thu, 01 Jan 2026 11:00:00 GMT', 0],
  ])('reads %j as %d ms from now', (value, want) => {
    expect(parseRetryAfter(value, now)).toBe(want);
  });

  it.each(['', 'soon', '-5', '1.5', '2026-01-01T12:05:00Z', undefined, null])('ignores %j', (value) => {
    expect(parseRetryAfter(value as string | undefined, now)).toBeNull();
  });
});

describe('a custom schedule (WEBHOOK_RETRY_SCHEDULE)', () => {
  it('replaces the waits and keeps the 3-day window', () => {
    const plan = retryPlan([s(1), s(2)]);
    expect(attemptOffsetsMs(plan)).toEqual([0, s(1), s(3)]);
    expect(plan.windowMs).toBe(DELIVERY_WINDOW_MS);
  });

  it('falls back to the default when empty or absent', () => {
    expect(retryPlan([]).waitsMs).toEqual(DEFAULT_RETRY_PLAN.waitsMs);
    expect(retryPlan(undefined).waitsMs).toEqual(DEFAULT_RETRY_PLAN.waitsMs);
  });
});

describe('attempt outcome by status', () => {
  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [299, 'delivered'],
    [301, 'failed'],
    [302, 'failed'],
    [400, 'failed'],
    [404, 'failed'],
    [410, 'gone'],
    [429, 'failed'],
    [500, 'failed'],
    [503, 'failed'],
  ])('%d is %s', (code, want) => {
    expect(outcomeOfStatus(code)).toBe(want);
  });
});

describe('formatDuration', () => {
  it.each([
    [s(5), '5s'],
    [m(5) + s(5), '5m05s'],
    [h(2) + m(35) + s(5), '2h35m05s'],
    [h(72), '3d'],
    [250, '250ms'],
  ])('%d ms is %s', (ms, want) => expect(formatDuration(ms)).toBe(want));
});

describe('busyRetryDelay (an attempt put off at the endpoint in-flight cap)', () => {
  const { busyRetryDelay, MAX_BUSY_WAITS } = jest.requireActual('../../../domain/webhook-schedule') as typeof import('../../../domain/webhook-schedule');
  it('doubles from 1 s to a 15 s ceiling, and jitter only shortens it down to half', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => busyRetryDelay(n))).toEqual([1000, 2000, 4000, 8000, 15000, 15000, 15000]);
    expect(busyRetryDelay(5, 0.5)).toBe(7500);
    expect(busyRetryDelay(5, 0)).toBe(7500);
    expect(busyRetryDelay(5, 7)).toBe(15000);
  });
  it('bounds the put-offs of one attempt to about an hour', () => {
    let total = 0;
    for (let n = 1; n <= MAX_BUSY_WAITS; n++) total += busyRetryDelay(n);
    expect(total).toBeGreaterThan(50 * 60_000);
    expect(total).toBeLessThan(61 * 60_000);
  });
});
