import { PaymentIntentState } from '../../../workflows/payment-intent/state';
import type { OlderIntentInput, PaymentIntentInput } from '../../../workflows/payment-intent/messages';
import { planSharedSecretWebhooks } from '../../../api/events/endpoints';
import { DomainError } from '../../../domain/errors';

// What an intent's events carry, as its workflow builds them: the older body of a v202606 intent with its
// metadata, the envelope data of a v202608 intent in that version's retrieve shape; and older webhook_urls
// refused when one is given twice.

const NOW = Date.parse('2026-11-28T10:00:00Z');
const input = (extra: Partial<PaymentIntentInput> = {}): PaymentIntentInput => ({
  id: 'pi_eu_events1',
  tenantId: 'ten_eu_t',
  region: 'eu',
  amount: 1000,
  currency: 'EUR',
  customer: 'cus_eu_c1',
  metadata: { order: 'A-7' },
  webhooks: [],
  connectors: ['con_eu_a'],
  returnUrl: null,
  createdAt: new Date(NOW).toISOString(),
  expiresAt: new Date(NOW + 1800_000).toISOString(),
  hostedPageUrl: 'http://127.0.0.1:1/pay',
  webhookTaskQueue: 'webhooks',
  ...extra,
});
const older = (extra: Partial<OlderIntentInput> = {}): OlderIntentInput => ({
  view: { payment_intent: '0b6f6a8e-6c1e-4d84-9a55-0c1f3d2b7e01', payment_intent_secret: 7 } as never,
  transactionId: 70,
  payloadJson: null,
  webhooks: [{ url: 'https://hooks.example.com/older', events: [] }],
  checkoutIntent: null,
  ...extra,
});

/** The state after a paid attempt through `con_eu_b`. */
function paid(inp: PaymentIntentInput): PaymentIntentState {
  const s = new PaymentIntentState(inp, NOW);
  const a = s.startAttempt({ token: 'tok_ok', connector: 'con_eu_b' }, NOW);
  s.succeed(a, 'ch_1', NOW);
  s.status = 'success';
  return s;
}

describe('the older webhook body', () => {
  test("a v202606 intent's carries its metadata beside payload (the spec returns an intent's metadata on its webhooks)", () => {
    const s = new PaymentIntentState(input({ older: older({ metadata: { order: 'A-7' } }) }), NOW);
    expect(s.olderWebhookBody('payment.canceled', 'T')).toMatchObject({ payload: null, metadata: { order: 'A-7' } });
  });

  test("an unprefixed intent's has its payload and no metadata (that create takes none)", () => {
    const body = new PaymentIntentState(input({ metadata: {}, older: older({ payloadJson: '{"cart":"c-9"}' }) }), NOW).olderWebhookBody('payment.canceled', 'T')!;
    expect(body.payload).toEqual({ cart: 'c-9' });
    expect(body).not.toHaveProperty('metadata');
  });
});

describe("an envelope event's data", () => {
  test('a v202608 intent, paid: the v202608 retrieve\'s shape, with the connector that took the payment and setup_future_usage', () => {
    const s = paid(input({ apiVersion: 'v202608', setupFutureUsage: 'off_session' }));
    expect(s.eventData()).toMatchObject({ status: 'success', connector: 'con_eu_b', setup_future_usage: 'off_session', metadata: { order: 'A-7' } });
  });

  test('a v202608 intent, pending: setup_future_usage, and no connector before it is paid (as its retrieve)', () => {
    const data = new PaymentIntentState(input({ apiVersion: 'v202608', setupFutureUsage: 'off_session' }), NOW).eventData();
    expect(data).toMatchObject({ status: 'pending', setup_future_usage: 'off_session' });
    expect(data).not.toHaveProperty('connector');
  });

  test('a v202607 intent, or a run that does not know its version: the v202607 shape, no connector', () => {
    for (const extra of [{ apiVersion: 'v202607' }, {}]) expect(paid(input(extra)).eventData()).not.toHaveProperty('connector');
  });
});

describe('older webhook_urls', () => {
  const config = { NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_HOSTS: false } as const;
  const refusal = (urls: string[]) => {
    try {
      planSharedSecretWebhooks('ten_eu_t', 'eu', urls, undefined, config);
      return null;
    } catch (err) {
      return err instanceof DomainError ? { code: err.code, param: err.param, message: err.message } : err;
    }
  };

  test('a URL given twice is a 400 naming the repeat: it would get every event twice', () => {
    expect(refusal(['https://hooks.example.com/a', 'https://hooks.example.com/b', 'https://hooks.example.com/a'])).toEqual({
      code: 'parameter_invalid',
      param: 'webhook_urls[2]',
      message: 'Invalid webhook_urls[2]: the same URL as webhook_urls[0]: list each URL once (every entry is sent every event)',
    });
  });

  test('the same receiver however its host is cased or its default port written', () => {
    expect(refusal(['https://Hooks.Example.com/a', 'https://hooks.example.com:443/a'])).toMatchObject({ param: 'webhook_urls[1]' });
  });

  test('distinct URLs pass', () => {
    expect(refusal(['https://hooks.example.com/a', 'https://hooks.example.com/a?x=1'])).toBeNull();
  });
});
