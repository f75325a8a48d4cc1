import { planNameMap } from '../../../api/billing-portal/service';
import { quoteCheckout } from '../../../api/checkout-sessions/quote';
import { checkoutFailedCopy, checkoutSessionPage, portalOverviewPage, portalSwitchListPage, type BillingAssets } from '../../../api/hosted/billing-pages';
import type { CheckoutView } from '../../../api/hosted/checkout-view';
import { pendingPageState, type LiveView } from '../../../api/hosted/intent-status';
import { isolate, localeFor, type Language } from '../../../api/hosted/locale';
import type { PendingPageState } from '../../../api/hosted/intent-status';
import { checkoutPageSetup, resultPageSetup } from '../../../api/hosted/page-setup';
import { checkoutPage, resultPage, type CheckoutClientConfig } from '../../../api/hosted/pages';
import type { PlanRecord, SubscriptionRecord } from '../../../platform/billing-records';
import { ASSETS, checkoutView, configOf, languageOf, markup, pendingIntent } from './page-fixtures';

// What the hosted pages tell the customer when the easy answer would be wrong: a charge whose answer is still
// being checked, a payment with no attempt left, a refund that has not (or not yet) gone through, a merchant's
// name that carries bidi controls, a plan the merchant never named.

const BILLING_ASSETS: BillingAssets = { ...ASSETS, billingCss: '/assets/billing/billing.css?v=1', portalJs: '/assets/billing/portal.js?v=1' };
const text = (page: string) => markup(page).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

const live = (over: Partial<LiveView> = {}): LiveView => ({ status: 'pending', version: 0, attempt: null, attempts: 0, ...over });
const charging = (phase: NonNullable<LiveView['attempt']>['phase']) => live({ attempt: { number: 1, phase, connector: 'con_a' }, attempts: 1 });

function payPage(v: CheckoutView, pending: PendingPageState, lg?: Language) {
  const setup = checkoutPageSetup(v, { layout: 'hosted', credential: { kind: 'client_secret', value: 'pics_x' }, lang: languageOf(v, lg), attempt: null, pending });
  return checkoutPage(v, { ...setup, assets: ASSETS });
}
const resultFor = (v: CheckoutView, pending: PendingPageState, lg?: Language) => resultPage(v, { ...resultPageSetup(v, 'pics_x', languageOf(v, lg), pending), assets: ASSETS });

describe('a pending intent as its live attempt leaves it', () => {
  const record = { status: 'pending' as const, version: 0 };
  test('a charge on the wire, one being checked with the gateway or an async one is being checked; the record lagging too', () => {
    expect(pendingPageState(record, charging('charging'), 20)).toBe('checking');
    expect(pendingPageState(record, charging('unknown'), 20)).toBe('checking');
    expect(pendingPageState(record, charging('awaiting_callback'), 20)).toBe('checking');
    expect(pendingPageState(record, live({ version: 1 }), 20)).toBe('checking');
  });

  test('a 3-D Secure challenge left open does not hold the form back: a new attempt replaces it', () => {
    expect(pendingPageState(record, charging('awaiting_action'), 20)).toBe('payable');
  });

  test('with every attempt made the form has nothing to offer; without the workflow’s word nothing is known', () => {
    expect(pendingPageState(record, live({ attempts: 20 }), 20)).toBe('attempt_limit');
    expect(pendingPageState(record, live({ attempts: 19 }), 20)).toBe('payable');
    expect(pendingPageState(record, null, 20)).toBe('unknown');
    expect(pendingPageState({ status: 'success', version: 2 }, null, 20)).toBe('payable');
  });
});

describe('a charge being checked', () => {
  const v = checkoutView(pendingIntent());

  test('the payment page says "Checking your payment…", hides the form and has its script follow the attempt', () => {
    const page = payPage(v, 'checking');
    expect(page).toContain('<div id="pay-section" class="pay-section" hidden>');
    expect(page).toMatch(/<section id="outcome" class="outcome tone-progress"[^>]*>/);
    expect(page).not.toMatch(/<section id="outcome"[^>]* hidden>/);
    expect(page).toContain('<h2 id="outcome-title" class="outcome-title">Checking your payment…</h2>');
    expect(page).toContain('role="status" aria-live="polite">Checking your payment…</div>');
    expect((configOf(page) as CheckoutClientConfig).checking).toBe(true);
  });

  test('a payable intent keeps its form, with nothing to follow', () => {
    const page = payPage(v, 'payable');
    expect(page).toContain('<div id="pay-section" class="pay-section" >');
    expect((configOf(page) as CheckoutClientConfig).checking).toBe(false);
  });

  test('the result page says the payment is being checked, never that nothing was charged, and asks again by itself', () => {
    for (const pending of ['checking', 'unknown'] as const) {
      const page = resultFor(v, pending);
      expect(text(page)).toContain('Checking your payment…');
      expect(text(page)).not.toContain('Nothing has been charged');
      expect(text(page)).not.toContain('Go to the payment page');
      expect(page).toContain('<meta http-equiv="refresh" content="3; url=/pay/pi_eu_page0000000000000001/result?client_secret=pics_x">');
    }
    const fr = resultFor(v, 'checking', 'fr');
    expect(text(fr)).toContain('Vérification de votre paiement…');
    expect(fr).toContain('result?client_secret=pics_x&amp;lg=fr">');
  });

  test('with no attempt in flight the result page still says nothing was charged and links back to pay', () => {
    const page = resultFor(v, 'payable');
    expect(text(page)).toContain('This payment is not complete yet Nothing has been charged so far.');
    expect(text(page)).toContain('Go to the payment page');
    expect(page).not.toContain('http-equiv');
  });
});

describe('no attempt left', () => {
  const v = checkoutView(pendingIntent());

  test('the payment page offers no form and says so in its language', () => {
    const said: Record<Language, string> = {
      en: 'This payment has reached its limit of payment attempts.',
      fr: 'Ce paiement a atteint sa limite de tentatives de paiement.',
      ar: 'بلغت هذه الدفعة الحد الأقصى لمحاولات الدفع.',
    };
    for (const lang of ['en', 'fr', 'ar'] as const) {
      const page = payPage(v, 'attempt_limit', lang);
      expect(page).not.toContain('id="card-form"');
      expect(page).not.toContain('id="pay-section"');
      expect(page).toContain(`<p id="outcome-message" class="outcome-message">${said[lang]}</p>`);
      expect((configOf(page) as CheckoutClientConfig).attemptLimitReached).toBe(true);
    }
  });

  test('an older intent’s customer is offered the way back to the merchant instead', () => {
    const older = checkoutView(pendingIntent({ api_version: 'v202606', final_failure_url: 'https://shop.example/ko' }));
    expect(payPage(older, 'attempt_limit')).toMatch(/<a id="outcome-link" class="button-secondary" href="https:\/\/shop.example\/ko" >Return to Brew &amp; Bean<\/a>/);
  });
});

describe('a checkout session whose subscription could not start says where its refund stands', () => {
  const say = (status: 'pending' | 'success' | 'canceled' | null, lang: Language = 'en') => checkoutFailedCopy(localeFor(lang), 'Shop', status ? { status } : null).message;

  test('being refunded, refunded, not refunded (rejected or canceled at its SLA), or unknown', () => {
    expect(say('pending')).toBe('Your payment is being refunded. Please contact Shop.');
    expect(say('success')).toBe('Your payment was refunded. Please contact Shop.');
    expect(say('canceled')).toBe('Your payment could not be refunded. Please contact Shop to get it back.');
    expect(say(null)).toBe('Please contact Shop about your payment.');
    expect(say('pending', 'fr')).toBe('Votre paiement est en cours de remboursement. Veuillez contacter Shop.');
    expect(say('canceled', 'ar')).toContain('تعذّر استرداد دفعتك');
  });
});

describe("the merchant's own text is isolated in every language", () => {
  const EVIL = 'Evil SARL\u202Eyour full card number';

  test('a name with a bidi override is wrapped (first-strong isolate) on left-to-right pages too, its own controls dropped', () => {
    for (const lang of ['en', 'fr'] as const) {
      const page = payPage(checkoutView(pendingIntent(), { merchantName: EVIL }), 'payable', lang);
      expect(markup(page)).toContain('\u2068Evil SARLyour full card number\u2069');
      expect(markup(page)).not.toContain('\u202E');
    }
    expect(isolate(localeFor('en'), 'X\u2069\u202Eabc')).toBe('\u2068Xabc\u2069');
    expect(isolate(localeFor('en'), 'مقهى')).toBe('\u2068مقهى\u2069');
    // Plain left-to-right text reads the same with or without: left as it is.
    expect(isolate(localeFor('en'), 'Brew & Bean')).toBe('Brew & Bean');
  });
});

describe('a plan the merchant gave no nickname', () => {
  const APRIL_1 = Date.parse('2026-04-01T00:00:00Z');
  const plan = (over: Partial<PlanRecord> = {}): PlanRecord =>
    ({ _id: 'plan_eu_22LLnoname0001', tenant_id: 'ten_eu_x', amount: 2002, currency: 'EUR', interval: 'month', interval_count: 1, trial_period_days: null, nickname: null, billing_scheme: 'per_unit', tiers_mode: null, tiers: null, active: true, metadata: {}, idempotency_scope: 'x', created_at: new Date(APRIL_1), updated_at: new Date(APRIL_1), ...over }) as PlanRecord;

  test('the checkout page names it "Subscription", never by its id', () => {
    const quote = quoteCheckout({ currency: 'EUR', interval: 'month', intervalCount: 1, items: [{ plan: plan(), quantity: 1, periodAmount: 2002, description: '' }], taxRates: [], coupon: null, trialDays: 0, startAt: APRIL_1 });
    for (const [lang, label] of [['en', 'Subscription'], ['fr', 'Abonnement']] as const) {
      const page = checkoutSessionPage(BILLING_ASSETS, localeFor(lang), { quote, currency: 'EUR', view: checkoutView(pendingIntent({ amount: 2002 })), config: { mode: 'hosted', lang } as unknown as CheckoutClientConfig, cancelUrl: null, startsAt: APRIL_1, trialEndsAt: null });
      expect(page).toContain(`<span class="line-item-name">${label}</span>`);
      expect(text(page)).not.toContain('plan_eu_22LL');
    }
  });

  test('the portal lists it as "Subscription" with its price', () => {
    const sub = { _id: 'sub_eu_1', status: 'active', snapshot: { status: 'active', currency: 'EUR', interval: 'month', intervalCount: 1, items: [{ item: 'si_eu_1', plan: 'plan_eu_22LLnoname0001', quantity: 1, periodAmount: 2002, description: '' }], cancelAtPeriodEnd: false, currentPeriodEnd: Date.parse('2026-05-01T00:00:00Z'), trialEnd: null, endedAt: null, canceledAt: null } } as unknown as SubscriptionRecord;
    const base = { merchant: { merchantName: 'Shop', testMode: false }, csrfToken: 'c'.repeat(64), link: (s: string) => `/billing/portal/bps_eu_1${s}`, returnUrl: null };
    const names = planNameMap([plan(), plan({ _id: 'plan_eu_named0000001', nickname: 'Gold' })]);
    expect([...names]).toEqual([['plan_eu_named0000001', 'Gold']]);
    const overview = text(portalOverviewPage(BILLING_ASSETS, localeFor('en'), { ...base, subscriptions: [sub], planNames: names, card: null, invoices: [], notice: null }));
    expect(overview).toContain('Subscription');
    expect(overview).not.toContain('plan_eu_22LL');
    const list = text(portalSwitchListPage(BILLING_ASSETS, localeFor('en'), { ...base, subscription: sub, plans: [plan(), plan({ _id: 'plan_eu_other0000001', amount: 3000 })] }));
    expect(list).toContain('Subscription 30.00 EUR every month');
    expect(list).not.toMatch(/plan_eu_\w+ /);
  });
});
