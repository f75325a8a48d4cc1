import { admit, refundableLeft, release, restore, type RefundBalance } from '../../../domain/refund-balance';

const paid: RefundBalance = { paid: 10_000, currency: 'EUR', reserved: {} };

test('an unpaid intent cannot be refunded', () => {
  expect(admit(null, { refundId: 'r', amount: 1, currency: 'EUR' })).toMatchObject({ ok: false, code: 'REFUND_TX_MUST_BE_SUCCESSFUL' });
});
test('the currency must be the paid one', () => {
  expect(admit(paid, { refundId: 'r', amount: 1, currency: 'USD' })).toMatchObject({ ok: false, code: 'REFUND_CCY_MISMATCH' });
});
test('refunds reserve until the total reaches the amount paid, and not one cent more', () => {
  let b = paid;
  let admitted = 0;
  let refused = 0;
  for (let i = 0; i < 50; i += 1) {
    const r = admit(b, { refundId: `r${i}`, amount: 300, currency: 'EUR' });
    if (r.ok) {
      b = r.balance;
      admitted += 1;
      expect(r.left).toBe(10_000 - 300 * admitted);
    } else {
      refused += 1;
      expect(r.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
    }
  }
  expect([admitted, refused]).toEqual([33, 17]);
  expect(refundableLeft(b)).toBe(100);
});
test('a release gives the amount back once; releasing again changes nothing', () => {
  const r = admit(paid, { refundId: 'a', amount: 4000, currency: 'EUR' });
  if (!r.ok) throw new Error('expected admission');
  const once = release(r.balance, 'a');
  expect(refundableLeft(once)).toBe(10_000);
  expect(release(once, 'a')).toBe(once);
});
test('the exact remaining amount is admitted', () => {
  expect(admit(paid, { refundId: 'all', amount: 10_000, currency: 'EUR' })).toMatchObject({ ok: true, left: 0 });
});

test('a released refund the gateway executed after all is spent again, once, even past zero', () => {
  const r = admit(paid, { refundId: 'late', amount: 4000, currency: 'EUR' });
  if (!r.ok) throw new Error('expected admission');
  const released = release(r.balance, 'late');
  const again = admit(released, { refundId: 'next', amount: 10_000, currency: 'EUR' });
  if (!again.ok) throw new Error('expected admission');
  const restored = restore(again.balance, 'late', 4000);
  expect(refundableLeft(restored)).toBe(-4000);
  expect(restore(restored, 'late', 4000)).toBe(restored);
});
