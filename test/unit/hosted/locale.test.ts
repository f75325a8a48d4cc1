import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import { outcomeCopy } from '../../../api/hosted/copy';
import { html } from '../../../api/hosted/html';
import { chooseLanguage, CLIENT_KEYS, clientText, fill, fillHtml, isolate, LANGUAGES, languageOf, localeFor, type Texts } from '../../../api/hosted/locale';
import { intentLanguage, LANGUAGE_COOKIE, pageLanguage, rememberLanguage, requestLanguage, withLanguage } from '../../../api/hosted/page-language';

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('choosing the page language', () => {
  test('a supported tag in any case or with a region names its language', () => {
    expect(languageOf('ar')).toBe('ar');
    expect(languageOf('FR')).toBe('fr');
    expect(languageOf('fr-CA')).toBe('fr');
    expect(languageOf('ar_EG')).toBe('ar');
    expect(languageOf(' en ')).toBe('en');
  });

  test('anything else names none: unsupported languages, junk, non-strings', () => {
    for (const raw of ['de', 'english', '', 'a', 'ar;', 'x'.repeat(100), null, undefined, 7, ['ar'], { lg: 'ar' }]) expect(languageOf(raw)).toBeNull();
  });

  test('the first supported candidate wins (the URL, then the intent), else English, never an error', () => {
    expect(chooseLanguage('fr', 'ar')).toBe('fr');
    expect(chooseLanguage(undefined, 'ar')).toBe('ar');
    expect(chooseLanguage('de', 'ar')).toBe('ar'); // an unknown ?lg= does not hide the intent's language
    expect(chooseLanguage('de', 'zz')).toBe('en');
    expect(chooseLanguage()).toBe('en');
  });

  test('Arabic is right to left, the others left to right', () => {
    expect(localeFor('ar')).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(localeFor('fr')).toMatchObject({ lang: 'fr', dir: 'ltr' });
    expect(localeFor('en')).toMatchObject({ lang: 'en', dir: 'ltr', dateLocale: null });
  });
});

/** A Koa context of a GET request, behind our proxy (`proxy: true`, as api/app.ts runs). */
function koaContext(headers: Record<string, string> = {}) {
  const req = new IncomingMessage(new Socket());
  Object.assign(req, { method: 'GET', url: '/pay/pi_1', headers });
  return new Koa({ proxy: true }).createContext(req, new ServerResponse(req));
}

describe("a page's language across the flow", () => {
  test('?lg= wins over the cookie, the cookie over the intent, and only a chosen language is carried in links', () => {
    expect(intentLanguage(pageLanguage({ lg: 'fr' }, 'ar'), 'en')).toEqual({ lang: 'fr', carried: 'fr', fromQuery: 'fr' });
    expect(intentLanguage(pageLanguage({}, 'ar'), 'fr')).toEqual({ lang: 'ar', carried: 'ar', fromQuery: null });
    expect(intentLanguage(pageLanguage({}, undefined), 'fr-FR')).toEqual({ lang: 'fr', carried: null, fromQuery: null });
    expect(intentLanguage(pageLanguage({ lg: 'klingon' }, 'de'), 'xx')).toEqual({ lang: 'en', carried: null, fromQuery: null });
    expect(pageLanguage({ lg: ['ar', 'fr'] }, undefined).lang).toBe('ar');
    // Before the intent is known (a "not found" page): the request's choice, else English.
    expect(pageLanguage({}, 'fr')).toEqual({ lang: 'fr', carried: 'fr', fromQuery: null });
    expect(pageLanguage({}, undefined)).toEqual({ lang: 'en', carried: null, fromQuery: null });
  });

  test('the cookie is read only by its exact name and only for a supported language', () => {
    const lang = (cookie: string) => requestLanguage(koaContext({ cookie }), {}).carried;
    expect(lang(`other=1; ${LANGUAGE_COOKIE}=ar`)).toBe('ar');
    expect(lang(`a=b;${LANGUAGE_COOKIE}=fr`)).toBe('fr');
    expect(lang(`x${LANGUAGE_COOKIE}=ar`)).toBeNull();
    expect(lang(`${LANGUAGE_COOKIE}=<script>`)).toBeNull();
    expect(requestLanguage(koaContext(), {}).carried).toBeNull();
    expect(requestLanguage(koaContext({ cookie: `${LANGUAGE_COOKIE}=ar` }), { lg: 'fr' })).toEqual({ lang: 'fr', carried: 'fr', fromQuery: 'fr' });
  });

  test('links keep a chosen language', () => {
    const chosen = pageLanguage({ lg: 'ar' }, undefined);
    expect(withLanguage('/pay/pi_1/result?client_secret=pics_x', chosen)).toBe('/pay/pi_1/result?client_secret=pics_x&lg=ar');
    expect(withLanguage('/pay/pi_1', chosen)).toBe('/pay/pi_1?lg=ar');
    expect(withLanguage('/pay/pi_1?a=1', intentLanguage(pageLanguage({}, undefined), 'ar'))).toBe('/pay/pi_1?a=1');
  });

  test('only a ?lg= is remembered, in a cookie scoped to the intent’s pages, Secure when the request came over https', () => {
    const setCookie = (ctx: ReturnType<typeof koaContext>) => ctx.response.headers['set-cookie'];
    const plain = koaContext();
    rememberLanguage(plain, '/pay/pi_1', pageLanguage({ lg: 'ar' }, undefined));
    rememberLanguage(plain, '/pay/pi_1', pageLanguage({ lg: 'fr' }, undefined)); // overwrites, never two
    expect(setCookie(plain)).toEqual([`${LANGUAGE_COOKIE}=fr; path=/pay/pi_1; samesite=lax; httponly`]);

    const proxied = koaContext({ 'x-forwarded-proto': 'https' });
    rememberLanguage(proxied, '/pay/pi_1', pageLanguage({ lg: 'fr' }, undefined));
    expect(setCookie(proxied)).toEqual([`${LANGUAGE_COOKIE}=fr; path=/pay/pi_1; samesite=lax; secure; httponly`]);

    const fromCookie = koaContext({ cookie: `${LANGUAGE_COOKIE}=ar` });
    rememberLanguage(fromCookie, '/pay/pi_1', requestLanguage(fromCookie, {}));
    expect(setCookie(fromCookie)).toBeUndefined();
  });
});

describe('the language tables', () => {
  const en = localeFor('en').text;

  test.each(LANGUAGES.filter((l) => l !== 'en'))('%s translates every entry, with the same placeholders as English', (lang) => {
    const table = localeFor(lang).text;
    for (const key of Object.keys(en) as (keyof Texts)[]) {
      const want = en[key];
      const got = table[key];
      if (typeof want === 'string') {
        expect(typeof got).toBe('string');
        expect(got).not.toBe('');
        expect({ key, placeholders: placeholders(got as string) }).toEqual({ key, placeholders: placeholders(want) });
      } else {
        expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
        for (const v of Object.values(got)) expect(v).not.toBe('');
      }
    }
    // Translated, not copied: the words a customer reads first differ from the English ones.
    for (const key of ['heading', 'cardNumber', 'succeededTitle', 'failed', 'returnTo'] as const) expect(table[key]).not.toBe(en[key]);
  });

  test('outcomes read in the page language', () => {
    expect(outcomeCopy('succeeded', 'Shop', '25.00 EUR', localeFor('fr'))).toEqual({ tone: 'success', title: 'Paiement réussi', message: '25.00 EUR payés à Shop.' });
  });

  test('in Arabic, amounts and names are bidi isolates so "25.00 EUR" keeps its order', () => {
    const ar = localeFor('ar');
    expect(isolate(ar, '25.00 EUR')).toBe('\u206825.00 EUR\u2069');
    expect(isolate(localeFor('en'), '25.00 EUR')).toBe('25.00 EUR');
    expect(outcomeCopy('succeeded', 'Shop', '25.00 EUR', ar).message).toBe('تم دفع \u206825.00 EUR\u2069 إلى \u2068Shop\u2069.');
  });

  test('fill fills placeholders and leaves unknown ones; fillHtml escapes the text and keeps markup values', () => {
    expect(fill('Pay {amount} to {merchant}', { amount: '1.00 EUR' })).toBe('Pay 1.00 EUR to {merchant}');
    expect(fill('{a}{a}', { a: 1 })).toBe('11');
    expect(fillHtml('Secured by {product} & {x}', { product: html`<strong>${'<P>'}</strong>`, x: '<i>' }).value).toBe(
      'Secured by <strong>&lt;P&gt;</strong> &amp; &lt;i&gt;',
    );
  });

  test('the script gets exactly the entries it shows, and every entry it asks for exists', () => {
    const text = clientText(localeFor('ar'));
    expect(Object.keys(text).sort()).toEqual([...CLIENT_KEYS].sort());
    const script = readFileSync(path.join(__dirname, '../../../api/hosted/assets/checkout.js'), 'utf8');
    const used = new Set([...script.matchAll(/\b(?:t|apiText)\((?:[^,()]*, )?'(\w+)'/g)].map((m) => m[1]!));
    expect([...used].sort()).toEqual([...CLIENT_KEYS].sort());
  });
});
