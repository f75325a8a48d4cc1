import { CheckoutRules } from '../../../workflows/checkout/state';
import type { CheckoutCarried, CheckoutInput, ReturnRequest } from '../../../workflows/checkout/messages';

// A checkout's rules as plain code, without Temporal: once paid, what its order can still take back (open
// returns count, rejected ones give their units back), the return window, and the idempotency keys.

const PAID_AT = Date.parse('2026-11-23T10:00:00.000Z');
const WINDOW = 30 * 86_400_000;

const address = { _id: 'addr_eu_1', phone: '+201000000000', additional_phone: null, address: '1 Nile St', additional_info: null, region: 'Cairo', city: 'Cairo' };

const input = (extra: Partial<CheckoutInput> = {}): CheckoutInput => ({
  id: 'chk_eu_state1',
  tenantId: 'ten_eu_t',
  region: 'eu',
  cartId: 'cart_eu_1',
  userId: 'user_1',
  currency: 'EGP',
  lines: [
    { productId: 'prd_a', quantity: 3, unitPrice: 1000, title: { en: 'Red shirt', ar: 'قميص أحمر' } },
    { productId: 'prd_b', quantity: 1, unitPrice: 250, title: { en: 'Cap', ar: 'قبعة' } },
  ],
  totals: { subtotal: 3250, tax: 488, shipping: 0, total: 3738 },
  taxRateBasisPoints: 1500,
  shippingAddress: address,
  createdAt: '2026-11-23T09:58:00.000Z',
  attachWithinMs: 120_000,
  returnWindowMs: WINDOW,
  webhookTaskQueue: 'webhooks',
  ...extra,
});

/** A checkout paid at PAID_AT (as the workflow leaves it), optionally with returns carried over. */
const paid = (extra: Partial<CheckoutInput> = {}, returns: CheckoutCarried['returns'] = []) =>
  new CheckoutRules(input({ ...extra, carried: { status: 'completed', paymentIntent: 'pi_eu_1', orderId: 'ord_eu_1', paidAt: new Date(PAID_AT).toISOString(), returns, version: 3 } }));

let keys = 0;
const req = (productId: string, quantity: number, idempotencyKey = `key-${++keys}`): ReturnRequest => ({
  idempotencyKey,
  productId,
  quantity,
  reasonCode: 'too_small',
  address,
  webhooks: [],
});

const NOW = PAID_AT + 3_600_000;

describe('a new checkout', () => {
  test('starts reserving with nothing returnable', () => {
    const s = new CheckoutRules(input());
    expect(s.state()).toEqual({ status: 'reserving', paymentIntent: null, orderId: null, returnable: [] });
    expect(s.paidAt).toBeNull();
    expect(s.returnsByKey.size).toBe(0);
  });

  test.each(['reserving', 'awaiting_payment', 'canceled', 'changed', 'abandoned'] as const)('%s: a return is refused (order_not_paid)', (status) => {
    const s = new CheckoutRules(input());
    s.status = status;
    const d = s.admitReturn(req('prd_a', 1), 'ret_1', NOW);
    expect(d).toMatchObject({ ok: false, code: 'order_not_paid' });
    expect(s.returnsByKey.size).toBe(0);
  });

  test('completed without a payment time is still not paid', () => {
    const s = new CheckoutRules(input());
    s.status = 'completed';
    expect(s.admitReturn(req('prd_a', 1), 'ret_1', NOW)).toMatchObject({ ok: false, code: 'order_not_paid' });
  });

  test('only a completed checkout lists returnable products', () => {
    const s = new CheckoutRules(input());
    s.status = 'awaiting_payment';
    expect(s.state().returnable).toEqual([]);
    expect(paid().state().returnable).toEqual([
      { productId: 'prd_a', returnableQuantity: 3 },
      { productId: 'prd_b', returnableQuantity: 1 },
    ]);
  });
});

describe('returnable quantities', () => {
  test('an admitted return counts at once: what is left is ordered minus open returns', () => {
    const s = paid();
    const d = s.admitReturn(req('prd_a', 2), 'ret_1', NOW);
    expect(d).toEqual({ ok: true, amount: 2300 }); // 2 × 1000 and 15 % of it
    expect(s.returnable('prd_a')).toBe(1);
    expect(s.returnable('prd_b')).toBe(1);
    expect(s.state().returnable).toEqual([
      { productId: 'prd_a', returnableQuantity: 1 },
      { productId: 'prd_b', returnableQuantity: 1 },
    ]);
  });

  test('a quantity above what is left is refused (open returns count), and counts nothing', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2), 'ret_1', NOW);
    const d = s.admitReturn(req('prd_a', 2), 'ret_2', NOW);
    expect(d).toEqual({ ok: false, code: 'return_quantity_exceeded', message: 'At most 1 of product prd_a can still be returned (open returns count)' });
    expect(s.returnsByKey.size).toBe(1);
    expect(s.admitReturn(req('prd_a', 1), 'ret_3', NOW).ok).toBe(true);
    expect(s.returnable('prd_a')).toBe(0);
    expect(s.admitReturn(req('prd_a', 1), 'ret_4', NOW)).toMatchObject({ ok: false, code: 'return_quantity_exceeded' });
  });

  test('more than was ordered in one go is refused', () => {
    expect(paid().admitReturn(req('prd_b', 2), 'ret_1', NOW)).toEqual({
      ok: false,
      code: 'return_quantity_exceeded',
      message: 'At most 1 of product prd_b can still be returned (open returns count)',
    });
  });

  test.each([0, -1, 1.5, Number.NaN])('a quantity of %p is refused', (quantity) => {
    const s = paid();
    expect(s.admitReturn(req('prd_a', quantity), 'ret_1', NOW)).toMatchObject({ ok: false, code: 'return_quantity_exceeded' });
    expect(s.returnable('prd_a')).toBe(3);
  });

  test('a rejected return gives its units back; other returns keep theirs', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2, 'k1'), 'ret_1', NOW);
    s.admitReturn(req('prd_a', 1, 'k2'), 'ret_2', NOW);
    expect(s.returnable('prd_a')).toBe(0);
    s.returnEnded('ret_1', true);
    expect(s.returnable('prd_a')).toBe(2);
    expect(s.returnsByKey.get('k1')).toMatchObject({ id: 'ret_1', rejected: true });
    expect(s.returnsByKey.get('k2')).toMatchObject({ id: 'ret_2', rejected: false });
    expect(s.admitReturn(req('prd_a', 2, 'k3'), 'ret_3', NOW).ok).toBe(true);
    expect(s.returnable('prd_a')).toBe(0);
  });

  test('a return that ended without rejection (refunded) keeps its units out; an unknown one changes nothing', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2, 'k1'), 'ret_1', NOW);
    s.returnEnded('ret_1', false);
    s.returnEnded('ret_nobody', true);
    expect(s.returnable('prd_a')).toBe(1);
  });

  test('a rejection told twice gives the units back once', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2, 'k1'), 'ret_1', NOW);
    s.returnEnded('ret_1', true);
    s.returnEnded('ret_1', true);
    expect(s.returnable('prd_a')).toBe(3);
  });

  test('two lines of the same product count together', () => {
    const s = paid({
      lines: [
        { productId: 'prd_a', quantity: 1, unitPrice: 1000, title: { en: 'A', ar: 'أ' } },
        { productId: 'prd_a', quantity: 2, unitPrice: 1000, title: { en: 'A', ar: 'أ' } },
      ],
    });
    expect(s.returnable('prd_a')).toBe(3);
    expect(s.admitReturn(req('prd_a', 3), 'ret_1', NOW).ok).toBe(true);
  });

  test('a product not in the order is refused by name, and a product of no order is not returnable', () => {
    const s = paid();
    expect(s.admitReturn(req('prd_zzz', 1), 'ret_1', NOW)).toEqual({ ok: false, code: 'product_not_in_order', message: 'Product prd_zzz is not in this order' });
    expect(s.returnable('prd_zzz')).toBe(0);
    expect(s.returnsByKey.size).toBe(0);
  });

  test('the amount is the returned units at the price paid with their share of tax, after the returns not rejected', () => {
    const s = paid({ lines: [{ productId: 'prd_c', quantity: 5, unitPrice: 990, title: { en: 'C', ar: 'ج' } }], taxRateBasisPoints: 1500 });
    // One unit: 990 and 148.5 of tax, rounded up. The next unit's share is the tax on both (297) less the 149
    // given back already: 1138, where a first return of one unit would be 1139.
    expect(s.admitReturn(req('prd_c', 1), 'ret_1', NOW)).toEqual({ ok: true, amount: 1139 });
    expect(s.admitReturn(req('prd_c', 1), 'ret_2', NOW)).toEqual({ ok: true, amount: 1138 });
    // ret_2 rejected: only ret_1 counts before the next one (with ret_2 it would be 446 - 297 = 149: 1139).
    s.returnEnded('ret_2', true);
    expect(s.admitReturn(req('prd_c', 1), 'ret_3', NOW)).toEqual({ ok: true, amount: 1138 });
  });
});

describe('the return window', () => {
  test('open up to and including paidAt + returnWindowMs', () => {
    expect(paid().admitReturn(req('prd_a', 1), 'ret_1', PAID_AT).ok).toBe(true);
    expect(paid().admitReturn(req('prd_a', 1), 'ret_1', PAID_AT + WINDOW).ok).toBe(true);
  });

  test('closed a millisecond later', () => {
    const s = paid();
    expect(s.admitReturn(req('prd_a', 1), 'ret_1', PAID_AT + WINDOW + 1)).toEqual({
      ok: false,
      code: 'return_window_closed',
      message: 'The return window of this order has closed',
    });
    expect(s.returnsByKey.size).toBe(0);
  });

  test('the window is checked before the product and the quantity', () => {
    expect(paid().admitReturn(req('prd_zzz', 99), 'ret_1', PAID_AT + WINDOW + 1)).toMatchObject({ code: 'return_window_closed' });
  });

  test('mayClose: not before the window ends; at once for a checkout that was never paid', () => {
    const s = paid();
    expect(s.mayClose(PAID_AT)).toBe(false);
    expect(s.mayClose(PAID_AT + WINDOW - 1)).toBe(false);
    expect(s.mayClose(PAID_AT + WINDOW)).toBe(true);
    const unpaid = new CheckoutRules(input());
    unpaid.status = 'canceled';
    expect(unpaid.mayClose(0)).toBe(true);
  });
});

describe('idempotency keys', () => {
  test('an admitted return is kept under its key with its id, product and quantity', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2, 'key-1'), 'ret_1', NOW);
    expect([...s.returnsByKey.entries()]).toEqual([['key-1', { id: 'ret_1', idempotencyKey: 'key-1', productId: 'prd_a', quantity: 2, rejected: false, taxShare: 300, reasonCode: 'too_small' }]]);
  });

  test('a known key asks for the same return only with its product, quantity and reason (older returns kept no reason)', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2, 'key-1'), 'ret_1', NOW);
    const known = s.returnsByKey.get('key-1')!;
    expect(CheckoutRules.sameReturn(known, req('prd_a', 2, 'key-1'))).toBe(true);
    expect(CheckoutRules.sameReturn(known, req('prd_b', 2, 'key-1'))).toBe(false);
    expect(CheckoutRules.sameReturn(known, req('prd_a', 1, 'key-1'))).toBe(false);
    expect(CheckoutRules.sameReturn(known, { ...req('prd_a', 2, 'key-1'), reasonCode: 'damaged' })).toBe(false);
    const { reasonCode: _older, ...older } = known;
    expect(CheckoutRules.sameReturn(older, { ...req('prd_a', 2, 'key-1'), reasonCode: 'damaged' })).toBe(true);
  });

  test('undoReturn gives the key and the units back (a return that could not be started)', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 3, 'key-1'), 'ret_1', NOW);
    expect(s.returnable('prd_a')).toBe(0);
    s.undoReturn('key-1');
    expect(s.returnsByKey.has('key-1')).toBe(false);
    expect(s.returnable('prd_a')).toBe(3);
    s.undoReturn('key-unknown'); // nothing to give back
    expect(s.returnable('prd_a')).toBe(3);
  });

  test('keys are data: keys named like Object properties are keys like any other', () => {
    const s = paid();
    expect(s.admitReturn(req('prd_a', 1, '__proto__'), 'ret_1', NOW).ok).toBe(true);
    expect(s.admitReturn(req('prd_a', 1, 'constructor'), 'ret_2', NOW).ok).toBe(true);
    expect(s.returnsByKey.get('__proto__')?.id).toBe('ret_1');
    expect(s.returnsByKey.get('constructor')?.id).toBe('ret_2');
    expect(s.returnable('prd_a')).toBe(1);
  });

  test('carry and restore: status, intent, order, payment time, returns (rejections included) and version', () => {
    const s = paid();
    s.admitReturn(req('prd_a', 2, 'k1'), 'ret_1', NOW);
    s.admitReturn(req('prd_b', 1, 'k2'), 'ret_2', NOW);
    s.returnEnded('ret_1', true);
    const carried = JSON.parse(JSON.stringify(s.carry(9))) as CheckoutCarried;
    expect(carried).toEqual({
      status: 'completed',
      paymentIntent: 'pi_eu_1',
      orderId: 'ord_eu_1',
      paidAt: new Date(PAID_AT).toISOString(),
      returns: [
        { id: 'ret_1', idempotencyKey: 'k1', productId: 'prd_a', quantity: 2, rejected: true, taxShare: 300, reasonCode: 'too_small' },
        { id: 'ret_2', idempotencyKey: 'k2', productId: 'prd_b', quantity: 1, rejected: false, taxShare: 38, reasonCode: 'too_small' },
      ],
      version: 9,
    });
    const r = new CheckoutRules(input({ carried }));
    expect(r.paidAt).toBe(PAID_AT);
    expect(r.state()).toEqual(s.state());
    expect(r.returnsByKey.get('k2')?.id).toBe('ret_2');
    expect(r.returnable('prd_a')).toBe(3);
    expect(r.returnable('prd_b')).toBe(0);
    expect(r.admitReturn(req('prd_b', 1), 'ret_3', NOW)).toMatchObject({ ok: false, code: 'return_quantity_exceeded' });
  });

  test('an unpaid checkout carries a null payment time', () => {
    const s = new CheckoutRules(input());
    s.status = 'awaiting_payment';
    s.paymentIntent = 'pi_eu_2';
    expect(s.carry(2)).toEqual({ status: 'awaiting_payment', paymentIntent: 'pi_eu_2', orderId: null, paidAt: null, returns: [], version: 2 });
    expect(new CheckoutRules(input({ carried: s.carry(2) })).paidAt).toBeNull();
  });
});

describe('tax given back across returns', () => {
  test('a rejected return between partial returns: the returns refunded never give back more tax than was paid', () => {
    // 3 units at 3 with 10% tax: the order paid 9 + 1 tax (0.9 rounded half up).
    const s = paid({ lines: [{ productId: 'prd_c', quantity: 3, unitPrice: 3, title: { en: 'C', ar: 'ج' } }], taxRateBasisPoints: 1000 });
    const amount = (key: string, id: string) => {
      const r = s.admitReturn(req('prd_c', 1, key), id, NOW);
      if (!r.ok) throw new Error(r.message);
      return r.amount;
    };
    expect(amount('a', 'ret_a')).toBe(3); // tax on 3: 0
    expect(amount('b', 'ret_b')).toBe(4); // tax on 6: 1
    s.returnEnded('ret_a', true);
    // Before, C and D were priced as if A's rounding were still given back: 4 + 4 + 3 = 11 for 10 paid.
    const refunded = 4 + amount('c', 'ret_c') + amount('d', 'ret_d');
    expect(refunded).toBe(10);
  });

  test('a return admitted by older code (no tax share kept) is priced as before', () => {
    const s = paid({ lines: [{ productId: 'prd_c', quantity: 3, unitPrice: 3, title: { en: 'C', ar: 'ج' } }], taxRateBasisPoints: 1000 });
    s.returnsByKey.set('old', { id: 'ret_old', idempotencyKey: 'old', productId: 'prd_c', quantity: 1, rejected: false });
    expect(s.admitReturn(req('prd_c', 1, 'new'), 'ret_new', NOW)).toEqual({ ok: true, amount: 4 });
  });
});
