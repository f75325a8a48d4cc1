import {
  comparePair,
  discrepancyKey,
  gatewayMoneyState,
  ledgerMoneyState,
  scheduledWindow,
  SettlementMatcher,
  undecided,
  unpairedGatewayRow,
  unpairedLedgerRow,
  windowProblem,
  type GatewayRow,
  type LedgerRow,
} from '../../../domain/reconciliation';

// The pure comparison of our ledger with a gateway's settlement report: statuses on one scale, each kind of
// finding, pairing by charge id (captures) or idempotency key (refunds, payouts), and the windows.

const window = { from: '2026-11-22T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' };

const capture = (over: Partial<LedgerRow> = {}): LedgerRow => ({
  object: 'capture',
  ourId: 'pi_eu_AAAAAAAAAAAAAAAAAAAAAA',
  tenantId: 'ten_eu_TTTTTTTTTTTTTTTTTTTTTT',
  gatewayId: 'ch_1',
  matchKey: 'ch_1',
  amount: 2500,
  currency: 'EUR',
  status: 'success',
  ...over,
});

const entry = (over: Partial<GatewayRow> = {}): GatewayRow => ({
  object: 'capture',
  gatewayId: 'ch_1',
  idempotencyKey: 'pi_eu_AAAAAAAAAAAAAAAAAAAAAA:attempt:1',
  reference: 'pi_eu_AAAAAAAAAAAAAAAAAAAAAA',
  chargeId: null,
  amount: 2500,
  currency: 'EUR',
  status: 'succeeded',
  occurredAt: '2026-11-22T10:00:00.000Z',
  ...over,
});

describe('money states', () => {
  it('puts both sides on one scale', () => {
    expect(['success', 'pending', 'canceled'].map(ledgerMoneyState)).toEqual(['succeeded', 'pending', 'failed']);
    expect(['succeeded', 'pending', 'requires_action', 'declined', 'rejected', 'failed', 'canceled'].map(gatewayMoneyState)).toEqual([
      'succeeded',
      'pending',
      'pending',
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
  });
});

describe('undecided rows (read again by later runs)', () => {
  it('is a row either side still calls pending, whatever the other says', () => {
    expect(undecided(capture({ status: 'pending' }), entry())).toBe(true);
    expect(undecided(capture(), entry({ status: 'requires_action' }))).toBe(true);
    expect(undecided(capture({ status: 'pending' }), undefined)).toBe(true); // not in the report yet
  });
  it('is not a row both sides have settled, alike or not, nor a settled row the report lacks', () => {
    expect(undecided(capture(), entry())).toBe(false);
    expect(undecided(capture({ status: 'canceled' }), entry({ status: 'succeeded' }))).toBe(false);
    expect(undecided(capture(), undefined)).toBe(false);
  });
});

describe('comparePair', () => {
  it('finds nothing in a matching pair', () => {
    expect(comparePair(capture(), entry())).toEqual([]);
  });
  it('finds an amount mismatch, a currency mismatch and a status mismatch, each with both sides', () => {
    const [amount] = comparePair(capture(), entry({ amount: 2400 }));
    expect(amount).toMatchObject({ kind: 'amount_mismatch', ourId: capture().ourId, gatewayId: 'ch_1', ours: { amount: 2500 }, gateway: { amount: 2400 } });
    expect(comparePair(capture(), entry({ currency: 'USD' })).map((f) => f.kind)).toEqual(['amount_mismatch']);
    const [status] = comparePair(capture(), entry({ status: 'declined' }));
    expect(status).toMatchObject({ kind: 'status_mismatch', ours: { status: 'success' }, gateway: { status: 'declined' } });
    expect(comparePair(capture(), entry({ amount: 1, status: 'declined' })).map((f) => f.kind)).toEqual(['amount_mismatch', 'status_mismatch']);
  });
  it('takes canceled and rejected (or declined) as the same outcome: no money moved', () => {
    const refund = capture({ object: 'refund', status: 'canceled' });
    expect(comparePair(refund, entry({ object: 'refund', status: 'rejected' }))).toEqual([]);
  });
  it('compares no amounts when neither side moved money (the placeholder a cancel by key leaves: 0, no currency)', () => {
    const payout = capture({ object: 'payout', status: 'canceled_timeout' });
    expect(comparePair(payout, entry({ object: 'payout', status: 'canceled', amount: 0, currency: '' }))).toEqual([]);
    // One side moved it: the amounts count again.
    expect(comparePair(capture({ object: 'payout' }), entry({ object: 'payout', amount: 0 })).map((f) => f.kind)).toEqual(['amount_mismatch']);
  });
});

describe('lone rows', () => {
  it('calls a settled row of ours missing at the gateway, not a pending or failed one', () => {
    expect(unpairedLedgerRow(capture())).toMatchObject({ kind: 'missing_at_gateway', gateway: null, ours: { amount: 2500 } });
    expect(unpairedLedgerRow(capture({ status: 'pending' }))).toBeNull();
    expect(unpairedLedgerRow(capture({ status: 'canceled' }))).toBeNull();
    expect(unpairedLedgerRow(capture({ amount: 0, gatewayId: null, matchKey: 'pi_eu_A' }))).toBeNull();
  });
  it('calls money moving at the gateway missing in the ledger, not a decline', () => {
    expect(unpairedGatewayRow(entry(), null)).toMatchObject({ kind: 'missing_in_ledger', ourId: null, tenantId: null, ours: null, gateway: { amount: 2500 } });
    expect(unpairedGatewayRow(entry({ status: 'pending' }), 'ten_eu_x')?.tenantId).toBe('ten_eu_x');
    expect(unpairedGatewayRow(entry({ status: 'declined' }), null)).toBeNull();
  });
});

describe('SettlementMatcher', () => {
  it('pairs captures by charge id, refunds by idempotency key, and leaves only unclaimed in-window entries', () => {
    const m = new SettlementMatcher('capture', window);
    m.addGateway(entry());
    m.addGateway(entry({ gatewayId: 'ch_2', amount: 900 }));
    m.addGateway(entry({ gatewayId: 'ch_margin', occurredAt: '2026-11-23T00:05:00.000Z' })); // read for the margin only
    m.addGateway(entry({ gatewayId: 'ch_declined', status: 'declined' }));
    m.addGateway(entry({ object: 'refund', gatewayId: 'rf_1', idempotencyKey: 're_eu_x' })); // another object type: ignored

    expect(m.pairLedger(capture())).toEqual([]);
    expect(m.pairLedger(capture({ ourId: 'pi_eu_B', gatewayId: 'ch_2', matchKey: 'ch_2', amount: 1000 })).map((f) => f.kind)).toEqual(['amount_mismatch']);
    expect(m.pairLedger(capture({ ourId: 'pi_eu_C', gatewayId: 'ch_9', matchKey: 'ch_9' })).map((f) => f.kind)).toEqual(['missing_at_gateway']);
    expect(m.matched).toBe(2);
    expect(m.unpairedGateway().map((g) => g.gatewayId)).toEqual([]);

    const r = new SettlementMatcher('refund', window);
    r.addGateway(entry({ object: 'refund', gatewayId: 'rf_1', idempotencyKey: 're_eu_x' }));
    r.addGateway(entry({ object: 'refund', gatewayId: 'rf_phantom', idempotencyKey: 'phantom:rf_phantom' }));
    expect(r.pairLedger(capture({ object: 'refund', ourId: 're_eu_x', gatewayId: 'rf_1', matchKey: 're_eu_x' }))).toEqual([]);
    expect(r.unpairedGateway().map((g) => g.gatewayId)).toEqual(['rf_phantom']);
  });
});

describe('SettlementMatcher with two entries under one key', () => {
  const refundRow = capture({ object: 'refund', ourId: 're_eu_x', gatewayId: 'rf_1', matchKey: 're_eu_x', amount: 500 });
  const refundEntry = (over: Partial<GatewayRow>) => entry({ object: 'refund', idempotencyKey: 're_eu_x', reference: 're_eu_x', amount: 500, ...over });

  it('pairs ours with the entry of the gateway id it recorded; the other is money moved twice, missing in our ledger', () => {
    const r = new SettlementMatcher('refund', window);
    r.addGateway(refundEntry({ gatewayId: 'rf_again' }));
    r.addGateway(refundEntry({ gatewayId: 'rf_1' }));
    r.addGateway(refundEntry({ gatewayId: 'rf_1' })); // the same entry read twice (pages overlapping): one entry
    expect(r.gatewayFor(refundRow)?.gatewayId).toBe('rf_1'); // what decides whether the pair is still undecided
    const found = r.pairLedger(refundRow);
    expect(found).toEqual([expect.objectContaining({ kind: 'missing_in_ledger', gatewayId: 'rf_again', tenantId: refundRow.tenantId, ourId: null, gateway: { amount: 500, currency: 'EUR', status: 'succeeded' } })]);
    expect(r.matched).toBe(1);
    expect(r.unpairedGateway()).toEqual([]);
  });

  it('a second entry that moved nothing is no finding; unclaimed, both are left for the owner lookup', () => {
    const r = new SettlementMatcher('refund', window);
    r.addGateway(refundEntry({ gatewayId: 'rf_1' }));
    r.addGateway(refundEntry({ gatewayId: 'rf_declined', status: 'rejected' }));
    expect(r.pairLedger(refundRow)).toEqual([]);
    const lone = new SettlementMatcher('refund', window);
    lone.addGateway(refundEntry({ gatewayId: 'rf_1' }));
    lone.addGateway(refundEntry({ gatewayId: 'rf_again' }));
    expect(lone.unpairedGateway().map((g) => g.gatewayId)).toEqual(['rf_1', 'rf_again']);
  });
});

describe('discrepancyKey', () => {
  it('is one per object, kind and id, whatever run finds it', () => {
    expect(discrepancyKey({ object: 'capture', kind: 'amount_mismatch', ourId: 'pi_eu_A', gatewayId: 'ch_1' })).toBe('capture:pi_eu_A:amount_mismatch');
    expect(discrepancyKey({ object: 'refund', kind: 'missing_in_ledger', ourId: null, gatewayId: 'rf_1' })).toBe('refund:gateway:rf_1:missing_in_ledger');
  });
  it('keeps a status mismatch found once both sides settled apart from the one opened while a side was pending', () => {
    expect(discrepancyKey({ object: 'refund', kind: 'status_mismatch', ourId: 're_eu_A', gatewayId: 'rf_1', settled: true })).toBe('refund:re_eu_A:status_mismatch:settled');
  });
});

describe('windows', () => {
  it('covers the previous UTC day for the daily run at 02:00, also when it starts late', () => {
    expect(scheduledWindow(Date.parse('2026-11-23T02:00:00Z'), 86_400)).toEqual(window);
    expect(scheduledWindow(Date.parse('2026-11-23T23:59:59Z'), 86_400)).toEqual(window);
    expect(scheduledWindow(Date.parse('2026-11-23T10:15:00Z'), 3600)).toEqual({ from: '2026-11-23T09:00:00.000Z', to: '2026-11-23T10:00:00.000Z' });
  });
  it('refuses empty, reversed, too long and future windows', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(windowProblem(window, now)).toBeNull();
    expect(windowProblem({ from: window.to, to: window.from }, now)).toMatch(/before/);
    expect(windowProblem({ from: '2026-09-01T00:00:00Z', to: '2026-11-01T00:00:00Z' }, now)).toMatch(/31 days/);
    expect(windowProblem({ from: '2026-11-24T00:00:00Z', to: '2026-11-25T00:00:00Z' }, now)).toMatch(/future/);
  });
});
