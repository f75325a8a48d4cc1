import { quoteCheckout, verificationAmount, type QuoteInput } from '../../../api/checkout-sessions/quote';
import { billingPageOf } from '../../../api/hosted/billing-paths';
import { checkoutSessionPage, every, longDate, money, portalCancelPage, portalOverviewPage, type BillingAssets } from '../../../api/hosted/billing-pages';
import { recurringPrice } from '../../../domain/billing/recurring-price';
import { csrfTokenFor, isCsrfTokenFor, isSwitchTokenFor, switchTokenFor } from '../../../api/hosted/billing-tokens';
import { fill, localeFor } from '../../../api/hosted/locale';
import type { CheckoutClientConfig } from '../../../api/hosted/pages';
import type { PlanRecord, SubscriptionRecord } from '../../../platform/billing-records';
import { ASSETS, checkoutView, markup, pendingIntent } from './page-fixtures';

/** An active monthly subscription of one box at `periodAmount`, renewing on 1 May 2026, as the portal reads it. */
function portalSubscription(periodAmount: number, cancelAtPeriodEnd: boolean): SubscriptionRecord {
  return {
    _id: 'sub_eu_1',
    status: 'active',
    snapshot: {
      status: 'active',
      currency: 'EUR',
      interval: 'month',
      intervalCount: 1,
      items: [{ item: 'si_eu_1', plan: 'plan_eu_box00000001', quantity: 1, periodAmount, description: '' }],
      cancelAtPeriodEnd,
      currentPeriodEnd: Date.parse('2026-05-01T00:00:00Z'),
      trialEnd: null,
      endedAt: null,
      canceledAt: null,
    },
  } as unknown as SubscriptionRecord;
}

// The billing pages' pure parts: a checkout session's figures (the subscription workflow's arithmetic), the
// tokens of the portal's forms, where a billing intent's payment page sends the customer, and the pages as
// drawn (escaped, labelled, in the page language).

const HOSTILE = `Evil "Shop" <script>alert(1)</script>`;
const BILLING_ASSETS: BillingAssets = { ...ASSETS, billingCss: '/assets/billing/billing.css?v=1', portalJs: '/assets/billing/portal.js?v=1' };
const APRIL_1 = Date.parse('2026-04-01T00:00:00Z');

const plan = (over: Partial<PlanRecord> = {}): PlanRecord => ({
  _id: 'plan_eu_box00000001',
  tenant_id: 'ten_eu_x',
  amount: 1999,
  currency: 'EUR',
  interval: 'month',
  interval_count: 1,
  trial_period_days: null,
  nickname: 'Coffee box',
  billing_scheme: 'per_unit',
  tiers_mode: null,
  tiers: null,
  active: true,
  metadata: {},
  idempotency_scope: 'x',
  created_at: new Date(APRIL_1),
  updated_at: new Date(APRIL_1),
  ...over,
});

function input(over: Partial<QuoteInput> = {}): QuoteInput {
  return {
    currency: 'EUR',
    interval: 'month',
    intervalCount: 1,
    items: [{ plan: plan(), quantity: 2, periodAmount: 3998, description: '2 × Coffee box (every month)' }],
    taxRates: [{ _id: 'txr_eu_vat0000001', display_name: 'VAT', percentage: 20, inclusive: false }],
    coupon: null,
    trialDays: 0,
    startAt: APRIL_1,
    ...over,
  };
}

describe("a checkout session's figures", () => {
  test('the first invoice as the workflow makes it: discount then tax, each rounded half up; the intent charges its total', () => {
    const q = quoteCheckout(input({ coupon: { name: 'WELCOME10', percent_off: 10, amount_off: null, duration: 'forever', duration_in_months: null } }));
    // 39.98 − 4.00 (3.998) = 35.98; VAT 7.20 (7.196); 43.18.
    expect(q.first).toEqual({ subtotal: 3998, discount: 400, tax: 720, total: 4318 });
    expect(q.renewal).toEqual(q.first);
    expect(q.charge).toEqual({ amount: 4318, verification: false });
    expect(q.items).toEqual([{ plan: 'plan_eu_box00000001', quantity: 2, description: '2 × Coffee box (every month)', name: 'Coffee box', unit_amount: 1999, amount: 3998 }]);
  });

  test('a once coupon reduces the first invoice only; a repeating one while its months last', () => {
    const once = quoteCheckout(input({ taxRates: [], coupon: { name: null as unknown as string, percent_off: 50, amount_off: null, duration: 'once', duration_in_months: null } }));
    expect([once.first.total, once.renewal.total]).toEqual([1999, 3998]);
    const oneMonth = quoteCheckout(input({ taxRates: [], coupon: { name: '', percent_off: 50, amount_off: null, duration: 'repeating', duration_in_months: 1 } }));
    expect([oneMonth.first.total, oneMonth.renewal.total]).toEqual([1999, 3998]);
    const twoMonths = quoteCheckout(input({ taxRates: [], coupon: { name: '', percent_off: 50, amount_off: null, duration: 'repeating', duration_in_months: 2 } }));
    expect([twoMonths.first.total, twoMonths.renewal.total]).toEqual([1999, 1999]);
  });

  test('a trial: nothing due today, a card check of one major unit instead; the once coupon is kept for the first charge', () => {
    const q = quoteCheckout(input({ trialDays: 14, taxRates: [], coupon: { name: '', percent_off: 50, amount_off: null, duration: 'once', duration_in_months: null } }));
    expect(q.first).toEqual({ subtotal: 0, discount: 0, tax: 0, total: 0 });
    expect(q.renewal.total).toBe(1999);
    expect(q.charge).toEqual({ amount: 100, verification: true });
    expect([verificationAmount('EUR'), verificationAmount('JPY'), verificationAmount('KWD')]).toEqual([100, 1, 1000]);
  });

  test('inclusive tax stays inside the amounts', () => {
    const q = quoteCheckout(input({ taxRates: [{ _id: 'txr_eu_incl000001', display_name: 'TVA', percentage: 20, inclusive: true }] }));
    expect(q.first).toEqual({ subtotal: 3998, discount: 0, tax: 666, total: 3998 });
  });
});

describe("the portal's tokens", () => {
  const pepper = 'pepper-for-tests-0123456789';
  test('a CSRF token opens its own session only', () => {
    const token = csrfTokenFor('bps_eu_a0000000001', pepper);
    expect(isCsrfTokenFor('bps_eu_a0000000001', token, pepper)).toBe(true);
    expect(isCsrfTokenFor('bps_eu_b0000000001', token, pepper)).toBe(false);
    expect(isCsrfTokenFor('bps_eu_a0000000001', token, 'another-pepper-0123456789')).toBe(false);
    for (const junk of [undefined, '', 'x', token.toUpperCase(), `${token}0`, 42]) expect(isCsrfTokenFor('bps_eu_a0000000001', junk, pepper)).toBe(false);
  });

  test('a confirm token binds the subscription, the plan and the proration date it was shown for', () => {
    const t = switchTokenFor('bps_eu_a', 'sub_eu_1', 'plan_eu_gold', 1775865600, pepper);
    expect(isSwitchTokenFor('bps_eu_a', 'sub_eu_1', 'plan_eu_gold', 1775865600, t, pepper)).toBe(true);
    expect(isSwitchTokenFor('bps_eu_a', 'sub_eu_1', 'plan_eu_gold', 1775865599, t, pepper)).toBe(false);
    expect(isSwitchTokenFor('bps_eu_a', 'sub_eu_1', 'plan_eu_basic', 1775865600, t, pepper)).toBe(false);
    expect(isSwitchTokenFor('bps_eu_a', 'sub_eu_2', 'plan_eu_gold', 1775865600, t, pepper)).toBe(false);
    expect(isSwitchTokenFor('bps_eu_b', 'sub_eu_1', 'plan_eu_gold', 1775865600, t, pepper)).toBe(false);
  });
});

describe("a billing intent's payment page", () => {
  test('sends the customer to the billing page that made it, keeping the 3-D Secure attempt and a chosen language', () => {
    const cs = 'cs_eu_7LmQp2VxN9cKd4TbRw8Zd3';
    const bps = 'bps_eu_Zd3H7kQp2VxN9cLm4TbRw8';
    expect(billingPageOf({ _id: 'pi_eu_1', metadata: { checkout_session: cs } }, { attempt: '2', lg: 'ar', client_secret: 'pics_x' })).toBe(`/billing/checkout/${cs}?attempt=2&lg=ar`);
    expect(billingPageOf({ _id: 'pi_eu_1', metadata: { checkout_session: cs } }, {})).toBe(`/billing/checkout/${cs}`);
    expect(billingPageOf({ _id: 'pi_eu_1', metadata: { billing_portal_session: bps } }, { attempt: '1' })).toBe(`/billing/portal/${bps}/card?payment_intent=pi_eu_1&attempt=1`);
    // Any other intent, or metadata that names no session, stays on its payment page; junk is not carried.
    expect(billingPageOf({ _id: 'pi_eu_1', metadata: { checkout_session: '../../admin' } }, {})).toBeNull();
    expect(billingPageOf({ _id: 'pi_eu_1', metadata: {} }, {})).toBeNull();
    expect(billingPageOf({ _id: 'pi_eu_1' }, {})).toBeNull();
    expect(billingPageOf({ _id: 'pi_eu_1', metadata: { checkout_session: cs } }, { attempt: '"><x', lg: ['ar'] })).toBe(`/billing/checkout/${cs}`);
  });
});

const config = (lang: 'en' | 'ar'): CheckoutClientConfig => ({ mode: 'hosted', lang } as unknown as CheckoutClientConfig);

describe('the pages', () => {
  test('words in the page language: intervals, amounts (a real minus sign, isolated in Arabic), dates', () => {
    const [en, fr, ar] = [localeFor('en'), localeFor('fr'), localeFor('ar')];
    expect([every(en, 'month', 1), every(en, 'month', 3), every(fr, 'year', 1), every(ar, 'week', 2)]).toEqual(['every month', 'every 3 months', 'par an', 'كل 2 أسابيع']);
    expect(money(en, -2000, 'EUR')).toBe('\u221220.00 EUR');
    expect(money(ar, 2399, 'EUR')).toBe('\u206823.99 EUR\u2069');
    expect([longDate(en, APRIL_1), longDate(fr, APRIL_1)]).toEqual(['1 April 2026', '1 avril 2026']);
    expect(longDate(ar, APRIL_1)).toMatch(/^1 .+ 2026$/);
  });

  test('the checkout page escapes every value, labels its figures and mirrors in Arabic', () => {
    const view = checkoutView(pendingIntent({ amount: 4318 }), { merchantName: HOSTILE });
    const quote = quoteCheckout(input());
    for (const lang of ['en', 'ar'] as const) {
      const page = checkoutSessionPage(BILLING_ASSETS, localeFor(lang), { quote, currency: 'EUR', view, config: config(lang), cancelUrl: 'https://shop.example.com/"back"', startsAt: APRIL_1, trialEndsAt: null });
      expect(markup(page)).not.toContain('<script>alert');
      expect(page).toContain('href="https://shop.example.com/&quot;back&quot;"');
      expect(page.match(/<script/g)).toHaveLength(2); // our checkout.js and its JSON settings
      expect(page).toContain('<link rel="stylesheet" href="/assets/billing/billing.css?v=1">');
      expect(page).toContain(lang === 'ar' ? '<html lang="ar" dir="rtl">' : '<html lang="en">');
      expect(page).toContain('<dd data-amount="4798">'); // 39.98 + VAT 8.00
      expect(page).toContain('<label for="card-number">');
    }
  });

  test('the portal lists subscriptions with their status and when they renew; its forms carry the CSRF token', () => {
    const sub = portalSubscription(1999, true);
    const page = portalOverviewPage(BILLING_ASSETS, localeFor('en'), {
      merchant: { merchantName: HOSTILE, testMode: false },
      csrfToken: 'c'.repeat(64),
      link: (s) => `/billing/portal/bps_eu_1${s}`,
      returnUrl: null,
      subscriptions: [sub],
      planNames: new Map([['plan_eu_box00000001', '<b>Box</b>']]),
      card: null,
      invoices: [],
      notice: null,
    });
    expect(markup(page)).not.toContain('<script>alert');
    expect(page).not.toContain('<b>Box</b>');
    expect(page).toContain('Cancels on 1 May 2026');
    expect(page).toContain('<span class="status status-active">Active</span>');
    // Cancels at the period's end: the way to undo it is a form with the token; no switch meanwhile.
    expect(page).toContain(`<input type="hidden" name="csrf_token" value="${'c'.repeat(64)}">`);
    expect(page).toContain('action="/billing/portal/bps_eu_1/subscriptions/sub_eu_1/renew"');
    expect(page).not.toContain('/switch');
    expect(page).toContain('<script src="/assets/billing/portal.js?v=1" defer></script>');
    expect(page).toContain('<script type="application/json" id="portal-config">');
  });
});

describe('what the pages say the customer pays', () => {
  const text = (page: string) => markup(page).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  const basic = (over: Partial<QuoteInput> = {}) =>
    input({ items: [{ plan: plan({ amount: 1000, nickname: 'Basic' }), quantity: 1, periodAmount: 1000, description: 'Basic' }], ...over });
  const page = (q: ReturnType<typeof quoteCheckout>, trialEndsAt: number | null = null, lang: 'en' | 'fr' = 'en') =>
    text(checkoutSessionPage(BILLING_ASSETS, localeFor(lang), { quote: q, currency: 'EUR', view: checkoutView(pendingIntent({ amount: q.charge.amount })), config: config('en'), cancelUrl: null, startsAt: APRIL_1, trialEndsAt }));

  test('a coupon repeating 3 months: the discounted price while it lasts, the full one after and from when', () => {
    // 10.00 − 50 % + 20 % VAT = 6.00 for April, May and June; the fourth invoice, 1 July, is 12.00.
    const q = quoteCheckout(basic({ coupon: { name: 'HALF', percent_off: 50, amount_off: null, duration: 'repeating', duration_in_months: 3 } }));
    const shown = page(q);
    expect(shown).toContain('Total due today 6.00 EUR');
    expect(shown).toContain('Then 6.00 EUR every month, and 12.00 EUR every month from 1 July 2026');
    // The headline is the lasting price, not the discounted one.
    expect(shown).toContain('Subscribe to Brew &amp; Bean 12.00 EUR every month Your subscription');
    expect(shown).not.toContain('Then 5.00 EUR');
    expect(page(q, null, 'fr')).toContain('Puis 6.00 EUR par mois, et 12.00 EUR par mois à partir du 1 juillet 2026');
    // A once coupon: the first invoice only, then the full price; no coupon: one price.
    expect(page(quoteCheckout(basic({ coupon: { name: '', percent_off: 50, amount_off: null, duration: 'once', duration_in_months: null } })))).toContain('Then 12.00 EUR every month');
    expect(page(quoteCheckout(basic()))).toContain('Then 12.00 EUR every month');
  });

  test('a trial: the lines lead to the total after the trial; nothing is due today', () => {
    const q = quoteCheckout(input({ trialDays: 14, taxRates: [] }));
    const shown = page(q, APRIL_1 + 14 * 86_400_000);
    // The line is 39.98, and so are the subtotal and the total after the trial; today 0.00.
    expect(shown).toContain('Subtotal 39.98 EUR');
    expect(shown).toContain('Total after the trial 39.98 EUR');
    expect(shown).toContain('Total due today 0.00 EUR');
    expect(shown).not.toContain('Subtotal 0.00');
    // A once coupon at the trial's end reduces the first charge only.
    const once = quoteCheckout(input({ trialDays: 14, taxRates: [], coupon: { name: '', percent_off: 50, amount_off: null, duration: 'once', duration_in_months: null } }));
    expect(page(once, APRIL_1 + 14 * 86_400_000)).toContain('After the trial, 19.99 EUR every month, from 15 April 2026; then 39.98 EUR every month from 15 May 2026');
  });

  test("the portal shows the price with tax and discount, and the cancel step what the period's end still charges", () => {
    const nextStart = (t: number) => t + 30 * 86_400_000;
    // 30.00 with 10 % off for good and 21.7 % VAT: 27.00 + 5.86 = 32.86.
    const price = recurringPrice({ amounts: [3000], taxRates: [{ id: 'txr', percentage: 21.7, inclusive: false }], discount: { percentOff: 10, amountOff: null, duration: 'forever', end: null }, usedOnce: false, firstStart: APRIL_1, nextStart });
    expect(price).toEqual({ total: 3286, later: null });
    const sub = portalSubscription(3000, false);
    const base = { merchant: { merchantName: 'Shop', testMode: false }, csrfToken: 'c'.repeat(64), link: (s: string) => `/billing/portal/bps_eu_1${s}`, returnUrl: null };
    const overview = text(portalOverviewPage(BILLING_ASSETS, localeFor('en'), { ...base, subscriptions: [sub], planNames: new Map(), card: null, invoices: [], notice: null, prices: new Map([['sub_eu_1', price]]) }));
    expect(overview).toContain('32.86 EUR every month');
    expect(overview).not.toContain('30.00 EUR');
    const later = recurringPrice({ amounts: [3000], taxRates: [], discount: { percentOff: 50, amountOff: null, duration: 'repeating', end: APRIL_1 + 45 * 86_400_000 }, usedOnce: false, firstStart: APRIL_1, nextStart });
    expect(later).toEqual({ total: 1500, later: { total: 3000, from: APRIL_1 + 60 * 86_400_000 } });

    const cancel = (finalCharge: { amount: number; currency: string } | null, lang: 'en' | 'fr' | 'ar' = 'en') => text(portalCancelPage(BILLING_ASSETS, localeFor(lang), { ...base, subscription: sub, planNames: new Map(), finalCharge }));
    expect(cancel(null)).toContain('Your subscription stays active until 1 May 2026, then ends. You will not be charged again.');
    expect(cancel({ amount: 900, currency: 'EUR' })).toContain('On 1 May 2026 you will be charged 9.00 EUR for the changes made to it this period, and then not again.');
    expect(cancel({ amount: 900, currency: 'EUR' })).not.toContain('You will not be charged again');
    expect(cancel({ amount: 900, currency: 'EUR' }, 'fr')).toContain('vous serez débité de 9.00 EUR');
    expect(cancel({ amount: 900, currency: 'EUR' }, 'ar')).toContain('9.00 EUR');
  });
});

describe('what the portal says a subscription that does not simply renew will do', () => {
  const text = (page: string) => markup(page).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  const base = { merchant: { merchantName: 'Shop', testMode: false }, csrfToken: 'c'.repeat(64), link: (s: string) => `/billing/portal/bps_eu_1${s}`, returnUrl: null };
  const LANGS = ['en', 'fr', 'ar'] as const;
  const withSnapshot = (over: Partial<SubscriptionRecord['snapshot']>): SubscriptionRecord => {
    const sub = portalSubscription(4000, false);
    return { ...sub, status: over.status ?? sub.status, snapshot: { ...sub.snapshot, ...over } };
  };
  const overview = (sub: SubscriptionRecord, lang: (typeof LANGS)[number] = 'en') =>
    text(portalOverviewPage(BILLING_ASSETS, localeFor(lang), { ...base, subscriptions: [sub], planNames: new Map(), card: null, invoices: [], notice: null }));

  test('paused with no resume date: paused, never "renews", in every language', () => {
    const paused = withSnapshot({ status: 'paused', pauseCollection: { behavior: 'void', resumesAt: null } });
    expect(overview(paused)).toContain('Paused, with no date to resume');
    for (const lang of LANGS) expect(overview(paused, lang)).not.toContain(fill(localeFor(lang).text.portalRenews, { date: longDate(localeFor(lang), Date.parse('2026-05-01T00:00:00Z')) }));
    expect(overview(paused, 'fr')).toContain('En pause, sans date de reprise');
    expect(overview(paused, 'ar')).toContain('متوقف مؤقتًا دون موعد للاستئناف');
  });

  test('paused until a date: when it resumes', () => {
    const paused = withSnapshot({ status: 'paused', pauseCollection: { behavior: 'void', resumesAt: Date.parse('2026-06-15T00:00:00Z') } });
    expect(overview(paused)).toContain('Paused until 15 June 2026');
    expect(overview(paused, 'fr')).toContain('En pause jusqu’au 15 juin 2026');
    expect(overview(paused, 'ar')).toContain('متوقف مؤقتًا حتى');
  });

  test('incomplete: it expires unless its first invoice is paid, rather than renews', () => {
    const incomplete = withSnapshot({ status: 'incomplete', created: Date.parse('2026-04-01T10:00:00Z') });
    expect(overview(incomplete)).toContain('Expires on 2 April 2026 unless its first invoice is paid');
    expect(overview(incomplete)).not.toContain('Renews on');
  });

  const cancel = (sub: SubscriptionRecord, owed: Parameters<typeof portalCancelPage>[2]['owed'], lang: (typeof LANGS)[number] = 'en', finalCharge: { amount: number; currency: string } | null = null) =>
    text(portalCancelPage(BILLING_ASSETS, localeFor(lang), { ...base, subscription: sub, planNames: new Map(), finalCharge, owed }));

  test('past due: the cancel step says the unpaid invoice is still due and retried, never that nothing more is charged', () => {
    const pastDue = withSnapshot({ status: 'past_due' });
    const owed = { amount: 4000, currency: 'EUR', invoices: 1, retryAt: Date.parse('2026-04-20T00:00:00Z'), until: Date.parse('2026-05-01T00:00:00Z') };
    expect(cancel(pastDue, owed)).toContain(
      'Your subscription ends on 1 May 2026 at the latest. An unpaid invoice of 40.00 EUR is still due. Your card will be charged again on 20 April 2026, and the payment retried until 1 May 2026 at the latest if that fails. Nothing else will be charged.',
    );
    for (const lang of LANGS) {
      const shown = cancel(pastDue, owed, lang);
      expect(shown).toContain('40.00 EUR');
      expect(shown).not.toContain(fill(localeFor(lang).text.portalCancelMessage, { date: longDate(localeFor(lang), Date.parse('2026-05-01T00:00:00Z')) }));
    }
    expect(cancel(pastDue, owed, 'fr')).toContain('Une facture impayée de 40.00 EUR reste due. Votre carte sera de nouveau débitée le 20 avril 2026');
    // With prorations pending too: both charges are said.
    expect(cancel(pastDue, { ...owed, invoices: 2, amount: 8000 }, 'en', { amount: 900, currency: 'EUR' })).toContain(
      'Unpaid invoices of 80.00 EUR in all are still due. Your card will be charged again on 20 April 2026, and the payment retried until 1 May 2026 at the latest if that fails. On 1 May 2026 you will also be charged 9.00 EUR for the changes made to it this period. Nothing else will be charged.',
    );
  });

  test('unpaid (no retry left): the invoice is still due, and the merchant may still charge it until the end', () => {
    const unpaid = withSnapshot({ status: 'unpaid' });
    const owed = { amount: 4000, currency: 'EUR', invoices: 1, retryAt: null, until: Date.parse('2026-05-01T00:00:00Z') };
    expect(cancel(unpaid, owed)).toContain('An unpaid invoice of 40.00 EUR is still due. Your card is not charged again automatically, but Shop may still charge it until 1 May 2026.');
    expect(cancel(unpaid, owed)).not.toContain('You will not be charged again');
  });
});
