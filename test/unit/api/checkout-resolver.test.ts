import {
  attemptRouting,
  boundCheckout,
  formCheckout,
  intentCheckoutOf,
  isBound,
  pinnedCheckout,
  unpinnedCheckout,
  unsupportedFormMethods,
  type Checkout,
  type TenantCheckoutConfig,
} from '../../../api/payment-methods/resolve';
import { DomainError } from '../../../domain/errors';
import type { ConnectorRecord, OrchestratorRecord, PaymentFormRecord, PaymentIntentRecord } from '../../../platform/records';

// The one resolver of issue 18: the listing, the hosted page, create and the attempts endpoint all ask it.
// These are its pure rules; test/integration/payment-method-listing.test.ts checks them on the real stack.

const T = 'ten_eu_shop';
let clock = Date.UTC(2026, 0, 1);

function connector(id: string, over: Partial<ConnectorRecord> = {}): ConnectorRecord {
  return { _id: id, tenant_id: T, gateway: 'sandbox', live: true, payment_methods: ['card'], payouts: false, created_at: new Date((clock += 1000)), ...over };
}
function form(id: string, over: Partial<PaymentFormRecord> = {}): PaymentFormRecord {
  return { _id: id, tenant_id: T, connectors: [], payment_methods: null, default: true, live: true, created_at: new Date(), ...over };
}
function orchestrator(id: string, over: Partial<OrchestratorRecord> = {}): OrchestratorRecord {
  return { _id: id, tenant_id: T, connectors: [], strategy: 'priority', live: true, default: true, created_at: new Date(), ...over };
}
function config(connectors: ConnectorRecord[], over: Partial<TenantCheckoutConfig> = {}): TenantCheckoutConfig {
  return { connectors, form: null, orchestrator: null, ...over };
}
type Intent = Pick<PaymentIntentRecord, 'tenant_id' | 'connectors' | 'failover' | 'pin' | 'gateway'>;
function intent(over: Partial<Intent> = {}): Intent {
  return { tenant_id: T, connectors: [], pin: null, ...over };
}
const names = (c: Checkout) => c.methods.map((m) => m.name);

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const card = connector('con_card', { payment_methods: ['card', 'apple_pay'] });
const sepa = connector('con_sepa', { payment_methods: ['sepa_debit'] });
const testMobile = connector('con_test', { live: false, payment_methods: ['card', 'mobile_money'] });

describe('an unpinned checkout', () => {
  test('without a default form or orchestrator: every live connector, oldest first, form null', () => {
    const c = unpinnedCheckout(config([sepa, testMobile, card]), T);
    expect(c).toEqual({
      connectors: ['con_card', 'con_sepa'],
      failover: false,
      form: null,
      methods: [
        { name: 'card', connectors: ['con_card'] },
        { name: 'apple_pay', connectors: ['con_card'] },
        { name: 'sepa_debit', connectors: ['con_sepa'] },
      ],
    });
  });

  test('a default form with a usable live connector decides, narrowed to its list, and says which form', () => {
    const c = unpinnedCheckout(config([card, sepa], { form: form('pf_1', { connectors: ['con_card'], payment_methods: ['apple_pay'] }) }), T);
    expect(c).toMatchObject({ connectors: ['con_card'], failover: false, form: 'pf_1' });
    expect(names(c)).toEqual(['apple_pay']);
  });

  test('a default form whose connectors are all off falls back to every live connector, and is not named', () => {
    const c = unpinnedCheckout(config([card, sepa, testMobile], { form: form('pf_dead', { connectors: ['con_test'], payment_methods: ['mobile_money'] }) }), T);
    expect(c).toMatchObject({ connectors: ['con_card', 'con_sepa'], form: null });
    expect(names(c)).toEqual(['card', 'apple_pay', 'sepa_debit']);
  });

  test('a default form whose live connectors take none of its methods is no usable checkout either', () => {
    const c = unpinnedCheckout(config([card, sepa], { form: form('pf_x', { connectors: ['con_card'], payment_methods: ['sepa_debit'] }) }), T);
    expect(c).toMatchObject({ connectors: ['con_card', 'con_sepa'], form: null });
  });

  test("the default orchestrator wins over the default form: its live connectors in its order, failing over, methods straight from them", () => {
    const c = unpinnedCheckout(
      config([card, sepa, testMobile], {
        form: form('pf_1', { connectors: ['con_card'], payment_methods: ['card'] }),
        orchestrator: orchestrator('orc_1', { connectors: ['con_test', 'con_sepa', 'con_card'] }),
      }),
      T,
    );
    expect(c).toMatchObject({ connectors: ['con_sepa', 'con_card'], failover: true, form: null });
    expect(names(c)).toEqual(['card', 'apple_pay', 'sepa_debit']);
  });

  test('a default orchestrator with no live connector is passed over', () => {
    const c = unpinnedCheckout(config([card, testMobile], { orchestrator: orchestrator('orc_1', { connectors: ['con_test'] }) }), T);
    expect(c).toMatchObject({ connectors: ['con_card'], failover: false, form: null });
  });

  test('a connector that takes no method the catalogue knows cannot be paid through', () => {
    const odd = connector('con_odd', { payment_methods: ['paypal'] });
    expect(unpinnedCheckout(config([odd, card]), T).connectors).toEqual(['con_card']);
  });

  test('no live connector: nothing to offer', () => {
    expect(unpinnedCheckout(config([testMobile]), T)).toEqual({ connectors: [], failover: false, form: null, methods: [] });
  });
});

describe("a form's checkout (GET /payment-methods/{payment_form})", () => {
  test('a live form: its live connectors that take a listed method', () => {
    const c = formCheckout(form('pf_1', { connectors: ['con_sepa', 'con_test', 'con_card'], payment_methods: ['card', 'mobile_money'] }), [card, sepa, testMobile]);
    expect(c).toMatchObject({ connectors: ['con_card'], form: 'pf_1' });
    expect(names(c)).toEqual(['card']);
  });

  test('a live form with no live connector lists nothing, under its own name', () => {
    expect(formCheckout(form('pf_1', { connectors: ['con_test'] }), [testMobile])).toEqual({ connectors: [], failover: false, form: 'pf_1', methods: [] });
  });

  test('a test form may use test connectors', () => {
    expect(names(formCheckout(form('pf_t', { live: false, connectors: ['con_test'] }), [testMobile]))).toEqual(['card', 'mobile_money']);
  });
});

describe('a pinned checkout at create', () => {
  test('a form pin is the form’s checkout, and equals its listing', () => {
    const pf = form('pf_1', { default: false, connectors: ['con_card', 'con_sepa'], payment_methods: ['sepa_debit'] });
    const c = pinnedCheckout({ kind: 'payment_form', id: 'pf_1' }, { kind: 'payment_form', record: pf }, [card, sepa], T);
    expect(c).toEqual(formCheckout(pf, [card, sepa]));
    expect(c.connectors).toEqual(['con_sepa']);
  });

  test('a form pin whose connectors take none of its methods is refused: nobody could pay', () => {
    const pf = form('pf_1', { connectors: ['con_card'], payment_methods: ['sepa_debit'] });
    expect(refusal(() => pinnedCheckout({ kind: 'payment_form', id: 'pf_1' }, { kind: 'payment_form', record: pf }, [card, sepa], T)).code).toBe('pin_invalid');
  });

  test('a connector pin uses the record just read, even when the cached list predates it', () => {
    const fresh = connector('con_new');
    expect(pinnedCheckout({ kind: 'connector', id: 'con_new' }, { kind: 'connector', record: fresh }, [card], T).connectors).toEqual(['con_new']);
  });
});

describe('an intent when it is shown and paid', () => {
  const later = connector('con_later', { payment_methods: ['card', 'google_pay'] });

  test('unpinned: the tenant’s checkout now, whatever was stored at create', () => {
    const unpinned = intent({ connectors: ['con_card'] });
    expect(isBound(unpinned)).toBe(false);
    const now = intentCheckoutOf(unpinned, config([card, later]), null);
    expect(now.connectors).toEqual(['con_card', 'con_later']);
    // A connector switched off since create is not used.
    const off = intentCheckoutOf(unpinned, config([{ ...card, live: false }, later]), null);
    expect(off.connectors).toEqual(['con_later']);
    expect(names(off)).toEqual(['card', 'google_pay']);
  });

  test('unpinned: a default orchestrator made after create routes it, with failover', () => {
    const c = intentCheckoutOf(intent({ connectors: ['con_card'] }), config([card, later], { orchestrator: orchestrator('orc_1', { connectors: ['con_later', 'con_card'] }) }), null);
    expect(c).toMatchObject({ connectors: ['con_later', 'con_card'], failover: true });
  });

  test('pinned: what the pin resolved to at create, in that order, less what is no longer live; never a newer connector', () => {
    const pinned = intent({ pin: { kind: 'orchestrator', id: 'orc_1' }, connectors: ['con_sepa', 'con_card'], failover: true });
    expect(isBound(pinned)).toBe(true);
    expect(intentCheckoutOf(pinned, config([card, sepa, later]), null)).toMatchObject({ connectors: ['con_sepa', 'con_card'], failover: true, form: null });
    expect(intentCheckoutOf(pinned, config([card, { ...sepa, live: false }, later]), null).connectors).toEqual(['con_card']);
  });

  test('pinned to a form: narrowed by the form’s list; a form that cannot be read offers nothing', () => {
    const pf = form('pf_1', { default: false, connectors: ['con_card'], payment_methods: ['apple_pay'] });
    const pinned = intent({ pin: { kind: 'payment_form', id: 'pf_1' }, connectors: ['con_card'] });
    const c = boundCheckout(pinned, pf, [card, later]);
    expect(c).toMatchObject({ connectors: ['con_card'], form: 'pf_1' });
    expect(names(c)).toEqual(['apple_pay']);
    expect(boundCheckout(pinned, null, [card, later])).toEqual({ connectors: [], failover: false, form: 'pf_1', methods: [] });
  });

  test('an older intent bound to a gateway keeps its connectors like a pin', () => {
    const older = intent({ gateway: 'sandbox', connectors: ['con_card'] });
    expect(isBound(older)).toBe(true);
    expect(intentCheckoutOf(older, config([card, later]), null).connectors).toEqual(['con_card']);
    expect(isBound(intent({ gateway: null }))).toBe(false);
  });
});

describe('what an attempt may use', () => {
  const checkout = { connectors: ['con_b', 'con_a'], failover: true };

  test('the checkout’s connectors go with the attempt, the first named unless the customer named one among them', () => {
    expect(attemptRouting(checkout, undefined)).toEqual({ connector: 'con_b', connectors: ['con_b', 'con_a'], failover: true });
    expect(attemptRouting(checkout, 'con_a')).toEqual({ connector: 'con_a', connectors: ['con_b', 'con_a'], failover: true });
    expect(refusal(() => attemptRouting(checkout, 'con_off'))).toMatchObject({
      kind: 'invalid_request',
      code: 'connector_not_allowed',
      message: 'This connector cannot be used for this payment intent',
      param: 'connector',
    });
  });

  test('no connector left: refused as the workflow would', () => {
    expect(refusal(() => attemptRouting({ connectors: [], failover: false }, undefined))).toMatchObject({ code: 'no_connector', message: 'The merchant has no live connector' });
  });
});

describe('the admin refusal of a form', () => {
  test('names each method no connector of the form takes, by index; liveness does not matter', () => {
    expect(unsupportedFormMethods(['card', 'sepa_debit', 'mobile_money'], [card, testMobile])).toEqual([1]);
    expect(unsupportedFormMethods(['card'], [card])).toEqual([]);
    expect(unsupportedFormMethods([], [])).toEqual([]);
  });
});
