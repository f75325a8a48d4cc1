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

/** The language named by our cookie in a Cookie header, if it names a supported one. */
export function cookieLanguage(cookieHeader: string | undefined): Language | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === LANGUAGE_COOKIE) return languageOf(part.slice(eq + 1).trim());
  }
  return null;
}

export function pageLanguage(query: Record<string, unknown>, cookieHeader: string | undefined, intentLg: string | null | undefined): PageLanguage {
  const raw = query['lg'];
  const fromQuery = languageOf(Array.isArray(raw) ? raw[0] : raw);
  const carried = fromQuery ?? cookieLanguage(cookieHeader);
  return { lang: chooseLanguage(carried, intentLg), carried, fromQuery };
}

/** `url` with `lg=` added when the customer chose the language; unchanged otherwise. */
export function withLanguage(url: string, lang: PageLanguage): string {
  if (!lang.carried) return url;
  return `${url}${url.includes('?') ? '&' : '?'}lg=${lang.carried}`;
}

/** Set-Cookie value remembering `lang` for one intent's pages (`/pay/<id>` and below), for this browser session. */
export function languageCookie(pagePath: string, lang: Language, secure: boolean): string {
  return `${LANGUAGE_COOKIE}=${lang}; Path=${pagePath}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
