import { LANGUAGES, localeFor } from '../../../api/hosted/locale';
import { offersSaveCard } from '../../../api/hosted/page-setup';
import type { PaymentIntentRecord } from '../../../platform/records';
import { checkoutView, configOf, pendingIntent, renderCheckout, renderResult } from './page-fixtures';

// "Save this card for future payments": offered on the hosted page and the embedded form of an intent whose
// merchant asked to keep the card (v202608 setup_future_usage: "off_session") for its customer.

const CUSTOMER = 'cus_eu_secretcustomer0001';

/** A v202608 intent whose merchant asked to keep the card for its customer. */
const intent = (over: Partial<PaymentIntentRecord> = {}) =>
  pendingIntent({ customer: CUSTOMER, setup_future_usage: 'off_session', api_version: 'v202608', ...over });
const view = (i = intent()) => checkoutView(i);
const render = (v = view(), opts: Parameters<typeof renderCheckout>[1] = {}) => renderCheckout(v, opts);
const checkbox = (page: string) => /<input id="save-card"[^>]*>/.exec(page)?.[0] ?? null;

describe('offering to save the card', () => {
  test('only an intent with a customer and setup_future_usage "off_session" offers it', () => {
    expect(offersSaveCard({ customer: CUSTOMER, setup_future_usage: 'off_session' })).toBe(true);
    expect(offersSaveCard({ customer: null, setup_future_usage: 'off_session' })).toBe(false);
    expect(offersSaveCard({ customer: CUSTOMER, setup_future_usage: null })).toBe(false);
    expect(offersSaveCard({ customer: CUSTOMER })).toBe(false); // intents created before the field, older intents
    expect(offersSaveCard({ customer: '', setup_future_usage: 'off_session' })).toBe(false);
    expect(offersSaveCard({ customer: CUSTOMER, setup_future_usage: 'off_session' }, true)).toBe(false); // deleted since
  });

  test('the hosted page shows an unticked checkbox with its label, inside the card form before the Pay button', () => {
    const page = render();
    const input = checkbox(page);
    expect(input).toBe('<input id="save-card" type="checkbox" name="save_payment_method" value="true">');
    expect(input).not.toMatch(/checked/);
    expect(page).toContain('<label for="save-card">Save this card for future payments</label>');
    const form = /<form id="card-form"[\s\S]*?<\/form>/.exec(page)![0];
    expect(form.indexOf('id="save-card"')).toBeGreaterThan(form.indexOf('id="card-name"'));
    expect(form.indexOf('id="save-card"')).toBeLessThan(form.indexOf('id="pay-button"'));
    expect(configOf(page).offerSaveCard).toBe(true);
    // The success note the script fills in when the attempt saved the card.
    expect(page).toContain('<p id="outcome-saved" class="outcome-saved" hidden></p>');
  });

  test.each([
    ['no customer', intent({ customer: null })],
    ['no setup_future_usage', intent({ setup_future_usage: null })],
    ['setup_future_usage absent', intent({ setup_future_usage: undefined })],
    ['neither', intent({ customer: null, setup_future_usage: undefined })],
  ])('with %s there is no checkbox', (_, i) => {
    for (const layout of ['hosted', 'embed'] as const) {
      const page = render(view(i), { layout });
      expect(page).toContain('id="card-form"');
      expect(checkbox(page)).toBeNull();
      expect(page).not.toContain('Save this card');
      expect(page).not.toContain('outcome-saved');
      expect(configOf(page).offerSaveCard).toBe(false);
    }
  });

  test('an intent already paid shows no form, so no checkbox', () => {
    const page = render(view(intent({ status: 'success' })));
    expect(page).not.toContain('id="card-form"');
    expect(checkbox(page)).toBeNull();
    expect(page).not.toContain('outcome-saved');
  });

  test('the embedded form offers it too, and learns only that boolean: not who the customer is', () => {
    const page = render(view(), { layout: 'embed' });
    expect(page).toContain('class="layout-embed"');
    expect(checkbox(page)).not.toBeNull();
    expect(configOf(page)).toMatchObject({ mode: 'embed', bearer: 'pk_eu_x', offerSaveCard: true });
    expect(page).not.toContain(CUSTOMER);
    expect(page).not.toContain('off_session');
    expect(render(view()).includes(CUSTOMER)).toBe(false); // nor the hosted page
  });

  test('the result page never offers it', () => {
    const page = renderResult(view());
    expect(checkbox(page)).toBeNull();
    expect(page).not.toContain('outcome-saved');
  });
});

describe('the offer in the page language', () => {
  test.each([
    ['en', 'Save this card for future payments', 'Card saved'],
    ['fr', 'Enregistrer cette carte pour mes prochains paiements', 'Carte enregistrée'],
    ['ar', 'حفظ هذه البطاقة للمدفوعات المستقبلية', 'تم حفظ البطاقة'],
  ] as const)('%s: the label, and "Card saved" for the script', (lang, label, saved) => {
    for (const layout of ['hosted', 'embed'] as const) {
      const page = render(view(), { lg: lang, layout });
      expect(page).toContain(`<label for="save-card">${label}</label>`);
      expect(configOf(page).text.cardSaved).toBe(saved);
    }
  });

  test('every language translates both entries (not the English words)', () => {
    const en = localeFor('en').text;
    for (const lang of LANGUAGES.filter((l) => l !== 'en')) {
      const t = localeFor(lang).text;
      expect(t.saveCard).not.toBe(en.saveCard);
      expect(t.cardSaved).not.toBe(en.cardSaved);
    }
  });

  test('Arabic: the page is right to left and the checkbox sits in it like the other fields (no dir of its own)', () => {
    const page = render(view(), { lg: 'ar' });
    expect(page).toMatch(/^<!doctype html>\n<html lang="ar" dir="rtl">/);
    expect(page).toMatch(/<div class="save-card">\s*<input id="save-card" type="checkbox" name="save_payment_method" value="true">\s*<label for="save-card">/);
    expect(checkbox(page)).not.toMatch(/dir=/);
  });
});
