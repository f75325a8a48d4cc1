import { isFinal, nextReturnStatus, REJECTION_REASON, returnAmount, wasReceived, type ReturnMove, type ReturnStatus } from '../../../domain/returns';
import { commerceTotals } from '../../../domain/commerce-totals';

// A return's lifecycle as plain rules: every status against every move of the merchant (repeats are
// idempotent, finished returns refuse everything, a rejection needs a well-formed reason), and what a
// return refunds (its units at the price paid, plus their share of tax rounded down, so that the returns of
// one order never give back more than it paid).

const STATUSES: ReturnStatus[] = ['requested', 'approved', 'received', 'refunded', 'refund_failed', 'rejected.damaged'];

/** What each move leads to from each status: a status, or `refused`. The rejection's reason is `damaged`. */
const TABLE: Record<string, Record<ReturnMove, ReturnStatus | 'refused'>> = {
  requested: { approved: 'approved', received: 'refused', rejected: 'rejected.damaged' },
  approved: { approved: 'approved', received: 'received', rejected: 'rejected.damaged' },
  received: { approved: 'refused', received: 'received', rejected: 'refused' },
  refunded: { approved: 'refused', received: 'refunded', rejected: 'refused' },
  refund_failed: { approved: 'refused', received: 'refund_failed', rejected: 'refused' },
  'rejected.damaged': { approved: 'refused', received: 'refused', rejected: 'rejected.damaged' },
};

const pairs = STATUSES.flatMap((current) => (['approved', 'received', 'rejected'] as ReturnMove[]).map((move) => [current, move, TABLE[current]![move]] as const));

describe('nextReturnStatus: every status against every move', () => {
  test.each(pairs)('%s + %s -> %s', (current, move, expected) => {
    const next = nextReturnStatus(current, move, move === 'rejected' ? 'damaged' : undefined);
    if (expected === 'refused') {
      expect(next.ok).toBe(false);
      if (!next.ok) expect(next.message).toMatch(new RegExp(`^A return that is ${current.replace('.', '\\.')} `));
    } else {
      expect(next).toEqual({ ok: true, status: expected });
    }
  });

  test('the table covers every status and every move: 6 × 3 pairs', () => {
    expect(pairs).toHaveLength(18);
  });
});

describe('repeats are idempotent', () => {
  test.each([
    ['approved', 'approved'],
    ['received', 'received'],
  ] as const)('%s again answers %s, unchanged', (current, move) => {
    expect(nextReturnStatus(current, move)).toEqual({ ok: true, status: current });
  });

  test.each(['refunded', 'refund_failed'] as const)('received again once its refund ended it (%s) answers it, unchanged: a PUT beside the one that received it', (current) => {
    expect(nextReturnStatus(current, 'received')).toEqual({ ok: true, status: current });
  });

  test('the same rejection again answers the same status', () => {
    expect(nextReturnStatus('rejected.wrong_size', 'rejected', 'wrong_size')).toEqual({ ok: true, status: 'rejected.wrong_size' });
  });

  test('a rejection with another reason, once rejected, is refused', () => {
    const next = nextReturnStatus('rejected.wrong_size', 'rejected', 'damaged');
    expect(next).toEqual({ ok: false, message: 'A return that is rejected.wrong_size can no longer be rejected' });
  });

  test('a move that leads back is refused (approved after received, approved after refunded)', () => {
    expect(nextReturnStatus('received', 'approved')).toEqual({ ok: false, message: 'A return that is received cannot become approved' });
    expect(nextReturnStatus('refunded', 'approved')).toEqual({ ok: false, message: 'A return that is refunded cannot become approved' });
  });

  test('received cannot skip approved', () => {
    expect(nextReturnStatus('requested', 'received')).toEqual({ ok: false, message: 'A return that is requested cannot become received' });
  });

  test('refunded and refund_failed are reached by the refund alone: no move leads there', () => {
    for (const current of STATUSES) {
      for (const move of ['approved', 'received', 'rejected'] as ReturnMove[]) {
        const next = nextReturnStatus(current, move, 'damaged');
        if (next.ok && next.status !== current) expect(['refunded', 'refund_failed']).not.toContain(next.status);
      }
    }
  });
});

describe('rejection reasons', () => {
  test.each(['damaged', 'wrong_size', 'a', 'late2', 'x'.repeat(64), 'a_1_b'])('%p is a reason: requested -> rejected.<reason>', (reason) => {
    expect(nextReturnStatus('requested', 'rejected', reason)).toEqual({ ok: true, status: `rejected.${reason}` });
    expect(nextReturnStatus('approved', 'rejected', reason)).toEqual({ ok: true, status: `rejected.${reason}` });
  });

  test.each([undefined, '', 'Damaged', 'too-late', 'two words', '1st', '_x', 'x'.repeat(65), 'damaged.again', 'تالف', 'damaged\n'])('%p is not a reason', (reason) => {
    const next = nextReturnStatus('requested', 'rejected', reason);
    expect(next).toEqual({ ok: false, message: 'A rejection needs a reason: lower-case letters, digits and underscores' });
  });

  test('a bad reason is refused before the status is looked at (a finished return too)', () => {
    expect(nextReturnStatus('refunded', 'rejected', 'Bad')).toEqual({ ok: false, message: 'A rejection needs a reason: lower-case letters, digits and underscores' });
  });

  test('a reason given with another move is ignored', () => {
    expect(nextReturnStatus('requested', 'approved', 'Whatever Text')).toEqual({ ok: true, status: 'approved' });
  });

  test('REJECTION_REASON is anchored: one token, at most 64 characters', () => {
    expect(REJECTION_REASON.test('ok_reason')).toBe(true);
    expect(REJECTION_REASON.test('ok reason')).toBe(false);
    expect(REJECTION_REASON.test('x'.repeat(64))).toBe(true);
    expect(REJECTION_REASON.test('x'.repeat(65))).toBe(false);
  });
});

describe('isFinal', () => {
  test.each([
    ['requested', false],
    ['approved', false],
    ['received', false],
    ['refunded', true],
    ['refund_failed', true],
    ['rejected.damaged', true],
    ['rejected.other_reason', true],
  ] as const)('%s: %p', (status, final) => {
    expect(isFinal(status)).toBe(final);
  });
});

describe('wasReceived: its refund has been handed over, or may be', () => {
  test.each([
    ['requested', false],
    ['approved', false],
    ['received', true],
    ['refunded', true],
    ['refund_failed', true],
    ['rejected.damaged', false],
  ] as const)('%s: %p', (status, received) => {
    expect(wasReceived(status)).toBe(received);
  });
});

describe("returnAmount: units at the price paid plus their share of the order's tax", () => {
  test.each([
    // [unitPrice, quantity, bp, amount]: a first return takes the order's half-up tax on its net
    [1000, 2, 1500, 2300], // 300 exactly
    [5, 1, 1000, 6], // tax 0.5: up, as the order rounds it
    [3, 1, 5000, 5], // 1.5: up
    [990, 1, 1500, 1139], // 148.5: up
    [990, 2, 1500, 2277], // 297 exactly
    [10000, 1, 1, 10001], // 1 exactly
    [7, 3, 0, 21], // no tax
    [12345, 1, 10000, 24690], // 100 %
    [0, 5, 1500, 0],
  ])('%i × %i at %i bp, first return: %i', (unitPrice, quantity, bp, amount) => {
    expect(returnAmount(unitPrice, quantity, bp)).toBe(amount);
  });

  test("a later return's tax is what the order's tax on everything returned grew by", () => {
    // 2 × 990 at 15 %: the order paid 297 tax. Returned one by one: 149 (148.5 up), then 297 - 149 = 148.
    expect(returnAmount(990, 1, 1500, 0)).toBe(990 + 149);
    expect(returnAmount(990, 1, 1500, 990)).toBe(990 + 148);
  });

  test('however an order is returned, its returns give back exactly its products and tax (never more)', () => {
    // Every way of splitting each line's units into returns, in order, for a few orders whose tax rounds.
    const orders = [
      { bp: 1500, lines: [{ unitPrice: 990, quantity: 2 }] },
      { bp: 1000, lines: [{ unitPrice: 5, quantity: 3 }] },
      { bp: 1500, lines: [{ unitPrice: 990, quantity: 1 }, { unitPrice: 990, quantity: 1 }] },
      { bp: 875, lines: [{ unitPrice: 1999, quantity: 3 }, { unitPrice: 250, quantity: 2 }] },
    ];
    const splits = (q: number): number[][] => (q === 0 ? [[]] : Array.from({ length: q }, (_, i) => i + 1).flatMap((first) => splits(q - first).map((rest) => [first, ...rest])));
    for (const { bp, lines } of orders) {
      const t = commerceTotals(lines, { taxRateBasisPoints: bp, shippingFlat: 500, freeShippingFrom: null }, true);
      const paid = t.subtotal + t.tax;
      const perLine = lines.map((l) => splits(l.quantity).map((parts) => parts.map((q) => ({ unitPrice: l.unitPrice, q }))));
      const combos = perLine.reduce<{ unitPrice: number; q: number }[][]>((acc, options) => acc.flatMap((a) => options.map((o) => [...a, ...o])), [[]]);
      for (const returns of combos) {
        let before = 0;
        let refunded = 0;
        for (const r of returns) {
          refunded += returnAmount(r.unitPrice, r.q, bp, before);
          before += r.unitPrice * r.q;
        }
        expect(refunded).toBe(paid);
      }
    }
  });

  test('integers in, an integer out', () => {
    for (let price = 1; price < 200; price += 7) for (const bp of [1, 333, 1500, 9999]) expect(Number.isInteger(returnAmount(price, 3, bp, price))).toBe(true);
  });
});
