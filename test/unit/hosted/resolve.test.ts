import {
  pinnedCheckout,
  unpinnedCheckout,
  checkoutMethods,
  formConnectorIds,
  methodsOfConnectors,
  methodsOfForm,
  usableConnectorIds,
  type PinTarget,
} from '../../../api/payment-methods/resolve';
import { DomainError } from '../../../domain/errors';
import type { ConnectorRecord, OrchestratorRecord, PaymentFormRecord } from '../../../platform/records';

const T = 'ten_eu_shop';
const OTHER = 'ten_eu_other';
let clock = Date.UTC(2026, 0, 1);

function connector(id: string, over: Partial<ConnectorRecord> = {}): ConnectorRecord {
  return { _id: id, tenant_id: T, gateway: 'sandbox', live: true, payment_methods: ['card'], payouts: false, created_at: new Date((clock += 1000)), ...over };
}
function form(id: string, over: Partial<PaymentFormRecord> = {}): PaymentFormRecord {
  return { _id: id, tenant_id: T, connectors: [], payment_methods: null, default: false, live: true, created_at: new Date(), ...over };
}
function orchestrator(id: string, over: Partial<OrchestratorRecord> = {}): OrchestratorRecord {
  return { _id: id, tenant_id: T, connectors: [], strategy: 'priority', live: true, created_at: new Date(), ...over };
}

const cardA = connector('con_a', { payment_methods: ['card', 'apple_pay'] });
const sepaB = connector('con_b', { payment_methods: ['sepa_debit', 'card'] });
const testC = connector('con_c', { live: false, payment_methods: ['card', 'mobile_money'] });
const otherD = connector('con_d', { tenant_id: OTHER });
const ALL = [cardA, sepaB, testC, otherD];

function pinError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a pin_invalid error');
}

describe('which connectors a checkout may use', () => {
  test('keeps the given order, the tenant’s own connectors only, each once', () => {
    expect(usableConnectorIds(['con_b', 'con_d', 'con_a', 'con_b', 'con_x'], ALL, T, false)).toEqual(['con_b', 'con_a']);
  });

  test('a live checkout never routes to a test connector', () => {
    expect(usableConnectorIds(['con_c', 'con_a'], ALL, T, true)).toEqual(['con_a']);
    expect(formConnectorIds(form('pf_live', { connectors: ['con_c', 'con_a'] }), ALL)).toEqual(['con_a']);
    expect(formConnectorIds(form('pf_test', { connectors: ['con_c', 'con_a'], live: false }), ALL)).toEqual(['con_c', 'con_a']);
  });

  test('unpinned: the default form’s connectors', () => {
    expect(unpinnedCheckout({ connectors: [...ALL], form: form('pf_default', { default: true, connectors: ['con_b'] }), orchestrator: null }, T).connectors).toEqual(['con_b']);
  });

  test('unpinned without a default form: every live connector of the tenant, oldest first', () => {
    expect(unpinnedCheckout({ connectors: [sepaB, otherD, testC, cardA], form: null, orchestrator: null }, T).connectors).toEqual(['con_a', 'con_b']);
  });

  test('pinned to an orchestrator: its live connectors in its order', () => {
    const target: PinTarget = { kind: 'orchestrator', record: orchestrator('orc_1', { connectors: ['con_b', 'con_c', 'con_a'] }) };
    expect(pinnedCheckout({ kind: 'orchestrator', id: 'orc_1' }, target, ALL, T).connectors).toEqual(['con_b', 'con_a']);
  });

  test('pinned to a payment form: its connectors', () => {
    const target: PinTarget = { kind: 'payment_form', record: form('pf_1', { connectors: ['con_a'] }) };
    expect(pinnedCheckout({ kind: 'payment_form', id: 'pf_1' }, target, ALL, T).connectors).toEqual(['con_a']);
  });

  test('pinned to a connector: that connector alone', () => {
    expect(pinnedCheckout({ kind: 'connector', id: 'con_b' }, { kind: 'connector', record: sepaB }, ALL, T).connectors).toEqual(['con_b']);
  });

  test('an unknown pin and another tenant’s pin get the same answer', () => {
    const unknown = pinError(() => pinnedCheckout({ kind: 'payment_form', id: 'pf_nope' }, null, ALL, T).connectors);
    const foreign = pinError(() =>
      pinnedCheckout({ kind: 'payment_form', id: 'pf_nope' }, { kind: 'payment_form', record: form('pf_nope', { tenant_id: OTHER, connectors: ['con_d'] }) }, ALL, T).connectors,
    );
    for (const err of [unknown, foreign]) {
      expect(err).toMatchObject({ kind: 'invalid_request', code: 'pin_invalid', message: 'No live payment_form pf_nope for this merchant', param: 'payment_form' });
    }
  });

  test('a pin to a target that is not live is refused', () => {
    const err = pinError(() => pinnedCheckout({ kind: 'connector', id: 'con_c' }, { kind: 'connector', record: testC }, ALL, T).connectors);
    expect(err).toMatchObject({ code: 'pin_invalid', message: 'No live connector con_c for this merchant', param: 'connector' });
  });

  test('a live pin with no live connector behind it is refused: nobody could pay the intent', () => {
    const target: PinTarget = { kind: 'orchestrator', record: orchestrator('orc_2', { connectors: ['con_c'] }) };
    expect(pinError(() => pinnedCheckout({ kind: 'orchestrator', id: 'orc_2' }, target, ALL, T).connectors).code).toBe('pin_invalid');
  });
});

describe('which payment methods are listed', () => {
  test('the union of the connectors’ methods, in catalogue order', () => {
    expect(methodsOfConnectors([sepaB, cardA])).toEqual(['card', 'apple_pay', 'sepa_debit']);
  });

  test('a form’s own list narrows what its connectors take, in catalogue order (issue 18: a method no connector takes is not listed)', () => {
    expect(methodsOfForm({ payment_methods: ['apple_pay', 'sepa_debit', 'card'] }, [cardA])).toEqual(['card', 'apple_pay']);
    expect(methodsOfForm({ payment_methods: null }, [cardA])).toEqual(['card', 'apple_pay']);
  });

  test('the checkout offers what its connectors take, with the connectors that take each', () => {
    expect(checkoutMethods(['con_b', 'con_a'], ALL, null)).toEqual([
      { name: 'card', connectors: ['con_b', 'con_a'] },
      { name: 'apple_pay', connectors: ['con_a'] },
      { name: 'sepa_debit', connectors: ['con_b'] },
    ]);
  });

  test('a form narrows the checkout, and a method no connector takes is not offered', () => {
    expect(checkoutMethods(['con_a'], ALL, { payment_methods: ['card', 'mobile_money'] })).toEqual([{ name: 'card', connectors: ['con_a'] }]);
  });
});
