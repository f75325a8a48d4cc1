import { escapeHtml, SafeHtml } from './html';
import { AR } from './locales/ar';
import { EN, type Texts } from './locales/en';
import { FR } from './locales/fr';

// The hosted page's languages: which one a page is shown in, and its table of what the customer reads.
// A page's language is `?lg=` on its URL when we support it, else the intent's `lg`, else English; an
// unknown tag is never an error, it just falls back.

export type { Texts } from './locales/en';

export const LANGUAGES = ['en', 'fr', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface Locale {
  lang: Language;
  dir: 'ltr' | 'rtl';
  /** For the script's dates and times; null: the browser's own (as English pages always did). */
  dateLocale: string | null;
  text: Texts;
}

const LOCALES: Record<Language, Locale> = {
  en: { lang: 'en', dir: 'ltr', dateLocale: null, text: EN },
  fr: { lang: 'fr', dir: 'ltr', dateLocale: 'fr', text: FR },
  // Latin digits, like the amounts and card numbers next to them.
  ar: { lang: 'ar', dir: 'rtl', dateLocale: 'ar-u-nu-latn', text: AR },
};

/** The supported language a tag names (`fr`, `FR`, `fr-CA`, `ar_EG`), or null for anything else. */
export function languageOf(raw: unknown): Language | null {
  if (typeof raw !== 'string' || raw.length > 35) return null;
  const primary = raw.trim().toLowerCase().split(/[-_]/)[0];
  return (LANGUAGES as readonly string[]).includes(primary ?? '') ? (primary as Language) : null;
}

/** The first candidate we support, else English: `chooseLanguage(query.lg, intent.lg)`. */
export function chooseLanguage(...candidates: unknown[]): Language {
  for (const c of candidates) {
    const lang = languageOf(c);
    if (lang) return lang;
  }
  return 'en';
}

export function localeFor(lang: Language): Locale {
  return LOCALES[lang];
}

export const ENGLISH = LOCALES.en;

type Vars = Readonly<Record<string, string | number>>;

/** Fills `{name}` placeholders; a placeholder without a value stays as written. */
export function fill(template: string, vars: Vars = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole));
}

/** Like fill, for HTML: the template's text is escaped, SafeHtml values are kept as markup. */
export function fillHtml(template: string, vars: Readonly<Record<string, string | number | SafeHtml>>): SafeHtml {
  const parts = template.split(/(\{\w+\})/);
  let out = '';
  parts.forEach((part, i) => {
    const name = i % 2 === 1 ? part.slice(1, -1) : null;
    if (name === null || !Object.prototype.hasOwnProperty.call(vars, name)) return void (out += escapeHtml(part));
    const v = vars[name]!;
    out += v instanceof SafeHtml ? v.value : escapeHtml(String(v));
  });
  return new SafeHtml(out);
}

/** Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms) and bidi controls. */
const FORMATTING_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const BIDI_SENSITIVE = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

/**
 * A value inserted into the page's text (an amount, a merchant's name, a plan, a card number) as a bidi isolate
 * (FSI ... PDI): "25.00 EUR" keeps its order inside an Arabic sentence, and a merchant's name with an override
 * (U+202E) or right-to-left letters cannot reorder the sentence around it. Left-to-right pages isolate only such
 * values; plain left-to-right text needs nothing there.
 */
export function isolate(locale: Pick<Locale, 'dir'>, value: string): string {
  if (locale.dir !== 'rtl' && !BIDI_SENSITIVE.test(value)) return value;
  // The value's own embeddings, overrides and isolates go: a stray PDI in it would close ours early.
  return `\u2068${value.replace(FORMATTING_CONTROLS, '')}\u2069`;
}

/** The entries the page script shows itself; it gets them in its config. */
export const CLIENT_KEYS = [
  'pay',
  'failed',
  'returnTo',
  'continue',
  'closeWindow',
  'takingBack',
  'takingToReceipt',
  'notCompleted',
  'expiryPlaceholder',
  'enterCardNumber',
  'invalidCardNumber',
  'enterExpiry',
  'expiryFormat',
  'cardExpired',
  'enterCvc',
  'cvcDigits',
  'checkValue',
  'checkHighlighted',
  'processing',
  'processingPayment',
  'cardCheckUnavailable',
  'unreachable',
  'couldNotStart',
  'attemptLimit',
  'sessionCannotComplete',
  'redirectingToBank',
  'confirmTitle',
  'confirmMessage',
  'openBankPage',
  'completeInWindow',
  'bankSlow',
  'cardSaved',
] as const satisfies readonly (keyof Texts)[];

export type ClientText = Record<(typeof CLIENT_KEYS)[number], string>;

export function clientText(locale: Locale): ClientText {
  return Object.fromEntries(CLIENT_KEYS.map((k) => [k, locale.text[k]])) as ClientText;
}
