import { CATALOG, PAYMENT_METHOD_NAMES, inCatalogOrder, logoUrl, paymentMethodEntry, paymentMethodEntrySchema } from '../../../api/payment-methods/catalog';
import { logoSvg } from '../../../api/payment-methods/logos';

describe('payment-method catalogue', () => {
  test('lists card first and every method once, in display order', () => {
    expect(PAYMENT_METHOD_NAMES[0]).toBe('card');
    const orders = PAYMENT_METHOD_NAMES.map((n) => CATALOG[n].order);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(new Set(orders).size).toBe(orders.length);
    expect(PAYMENT_METHOD_NAMES).toEqual(expect.arrayContaining(['card', 'apple_pay', 'google_pay', 'sepa_debit', 'bank_transfer', 'mobile_money']));
  });

  test('orders configured methods by the catalogue, whatever order they were given in', () => {
    expect(inCatalogOrder(['mobile_money', 'card', 'sepa_debit'])).toEqual(['card', 'sepa_debit', 'mobile_money']);
  });

  test('drops unknown names and duplicates', () => {
    expect(inCatalogOrder(['card', 'paypal', 'card', 'apple_pay', '__proto__'])).toEqual(['card', 'apple_pay']);
  });

  test('entries point at logos served from our own host', () => {
    expect(paymentMethodEntry('sepa_debit', 'https://api-eu.example.com/')).toEqual({
      name: 'sepa_debit',
      title: 'SEPA Direct Debit',
      category: 'bank',
      logo_url: 'https://api-eu.example.com/assets/payment-methods/sepa_debit.svg',
      favicon_url: 'https://api-eu.example.com/assets/payment-methods/sepa_debit-favicon.svg',
    });
    expect(logoUrl('', 'card')).toBe('/assets/payment-methods/card.svg');
  });

  test('every entry matches the documented response schema', () => {
    for (const name of PAYMENT_METHOD_NAMES) {
      expect(paymentMethodEntrySchema.safeParse(paymentMethodEntry(name, 'https://pay.example.com')).success).toBe(true);
    }
  });

  test.each(PAYMENT_METHOD_NAMES)('%s has a logo and a square favicon, both standalone SVG with a title', (name) => {
    const logo = logoSvg(name, 'logo');
    const favicon = logoSvg(name, 'favicon');
    expect(logo).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="64" height="40" viewBox="0 0 64 40"/);
    expect(favicon).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="32" height="32" viewBox="0 0 32 32"/);
    for (const svg of [logo, favicon]) {
      expect(svg).toContain(`<title>${CATALOG[name].title}</title>`);
      expect(svg).not.toMatch(/<script|on\w+=|href=/i);
      expect(svg.trim().endsWith('</svg>')).toBe(true);
    }
  });
});
