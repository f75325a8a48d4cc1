import type { Context } from 'koa';
import { chooseLanguage, languageOf, type Language } from './locale';

// A hosted page's language for one request. `?lg=` on the URL wins, then the language this browser chose
// earlier for this intent's pages (a cookie), then the intent's `lg`, then English. The choice of `?lg=`
// has to outlive the URL that carried it: the page's own links carry it (`lg=` on the result and pay-again
// URLs), and a 3-D Secure return, whose URL the workflow built at create (`<page url>&attempt=N`), finds
// it in the cookie. The cookie holds nothing but the language code, for this intent's pages only.

export const LANGUAGE_COOKIE = 'payorch_lg';

export interface PageLanguage {
  lang: Language;
  /** The customer's own choice (URL or cookie), to carry in our links; null when the intent's or the default. */
  carried: Language | null;
  /** A supported `?lg=` on this URL: remember it in the cookie. */
  fromQuery: Language | null;
}

/**
 * The language a request asks for, before any intent is known (what a "not found" page speaks): `?lg=`,
 * then the cookie's value, else English. Once the intent is read, `intentLanguage` settles it.
 */
export function pageLanguage(query: Record<string, unknown>, cookieValue: string | undefined): PageLanguage {
  const raw = query['lg'];
  const fromQuery = languageOf(Array.isArray(raw) ? raw[0] : raw);
  const carried = fromQuery ?? languageOf(cookieValue);
  return { lang: chooseLanguage(carried), carried, fromQuery };
}

/** The page's language once its intent is known: the customer's choice, else the intent's `lg`, else English. */
export function intentLanguage(requested: PageLanguage, intentLg: string | null | undefined): PageLanguage {
  return { ...requested, lang: chooseLanguage(requested.carried, intentLg) };
}

/** `pageLanguage` of a Koa request: its `?lg=` and our cookie. */
export function requestLanguage(ctx: Pick<Context, 'cookies'>, query: Record<string, unknown>): PageLanguage {
  return pageLanguage(query, ctx.cookies.get(LANGUAGE_COOKIE, { signed: false }));
}

/**
 * Remembers a `?lg=` for one intent's pages (`pagePath` and below), for this browser session; nothing when
 * the URL chose no language. Secure when the request came over https (`proxy: true`: X-Forwarded-Proto counts).
 */
export function rememberLanguage(ctx: Pick<Context, 'cookies' | 'secure'>, pagePath: string, lang: PageLanguage): void {
  if (!lang.fromQuery) return;
  ctx.cookies.set(LANGUAGE_COOKIE, lang.fromQuery, { path: pagePath, httpOnly: true, sameSite: 'lax', secure: ctx.secure, overwrite: true, signed: false });
}

/** `url` with `lg=` added when the customer chose the language; unchanged otherwise. */
export function withLanguage(url: string, lang: PageLanguage): string {
  if (!lang.carried) return url;
  return `${url}${url.includes('?') ? '&' : '?'}lg=${lang.carried}`;
}
