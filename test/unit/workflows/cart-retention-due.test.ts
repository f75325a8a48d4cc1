import { CART_RETENTION_MONTHS, retentionDueMs } from '../../../workflows/cart-retention/messages';

// When a cart falls due: 6 calendar months after its creation (the spec's words), not 180 days.

test('six calendar months: the same day and time, or the last day of a shorter month', () => {
  const due = (createdAt: string) => new Date(retentionDueMs({ createdAt, retentionMonths: CART_RETENTION_MONTHS })).toISOString();
  expect(due('2026-01-15T09:30:00.000Z')).toBe('2026-07-15T09:30:00.000Z'); // 181 days on
  expect(due('2026-08-31T23:59:59.000Z')).toBe('2027-02-28T23:59:59.000Z');
  expect(due('2027-08-31T00:00:00.000Z')).toBe('2028-02-29T00:00:00.000Z');
});

test('a cart made with CART_RETENTION_SECONDS (tests), or before months were given, falls due by seconds', () => {
  expect(retentionDueMs({ createdAt: '2026-01-15T00:00:00.000Z', retentionSeconds: 3 })).toBe(Date.parse('2026-01-15T00:00:03.000Z'));
  // The inputs of runs started before: retentionSeconds only, 180 days.
  expect(retentionDueMs({ createdAt: '2026-01-15T00:00:00.000Z', retentionSeconds: 180 * 86_400 })).toBe(Date.parse('2026-07-14T00:00:00.000Z'));
});
