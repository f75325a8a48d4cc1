// The word search of product titles (`filter.title`), as pure functions: the normaliser, the tokeniser, and
// the reading of a query. The data layer stores the tokens of each title (`title_tokens.en` / `.ar`) and
// queries them; the local MongoDB-protocol server has no text index, so this is the whole search.
//
// Matching (prefix-last, Algolia's default): every word of the query must be a whole word of the title,
// except the last, which may be the beginning of one, so results follow a search box as the user types
// ("red sh" finds "Red shirt", not "Reddish shoe"; "red" alone finds both).

export type SearchLanguage = 'en' | 'ar';

/** Longest search value we read, and most words; a value beyond either is refused by the API. */
export const MAX_SEARCH_LENGTH = 200;
export const MAX_SEARCH_WORDS = 10;

// Arabic marks: tashkeel U+064B–U+0652 (fathatan ... sukun), their neighbours U+0653–U+065F (maddah, hamza
// above and below, and rarer marks: what is left of a decomposed آ أ إ), and superscript alef U+0670.
const ARABIC_MARKS = /[\u064B-\u065F\u0670]/g;
const TATWEEL = /\u0640/g;
// Combining marks of Latin letters once decomposed (é = e + U+0301): removed, so "creme" finds "Crème".
const LATIN_MARKS = /[\u0300-\u036F]/g;
const LETTERS: ReadonlyMap<string, string> = new Map([
  ['\u0623', '\u0627'], // أ -> ا
  ['\u0625', '\u0627'], // إ -> ا
  ['\u0622', '\u0627'], // آ -> ا
  ['\u0671', '\u0627'], // ٱ (alef wasla) -> ا
  ['\u0629', '\u0647'], // ة -> ه
  ['\u0649', '\u064A'], // ى -> ي
]);
const LETTER_RE = /[\u0622\u0623\u0625\u0671\u0629\u0649]/g;
// Arabic-Indic (U+0660–U+0669) and Eastern Arabic-Indic (U+06F0–U+06F9) digits, as ASCII digits.
const DIGITS = /[\u0660-\u0669\u06F0-\u06F9]/g;
// An apostrophe inside a word joins it ("men's" is one word, "mens").
const APOSTROPHES = /['\u2019\u02BC]/g;
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/u;
const ARABIC_LETTER = /(?=\p{Script=Arabic})\p{L}/u;

/**
 * Text as the search compares it: compatibility forms folded (NFKC: Arabic presentation forms, full-width
 * Latin, ligatures such as ﻻ), Latin accents removed, lower case, Arabic diacritics and tatweel removed,
 * أ إ آ ٱ as ا, ة as ه, ى as ي, Arabic-Indic digits as 0-9.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .normalize('NFD')
    .replace(LATIN_MARKS, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(ARABIC_MARKS, '')
    .replace(TATWEEL, '')
    .replace(LETTER_RE, (ch) => LETTERS.get(ch) ?? ch)
    .replace(DIGITS, (d) => String(d.charCodeAt(0) & 0x0f));
}

/** The normalised words of `text` in order, repeats included: runs of letters, digits and marks. */
export function words(text: string): string[] {
  return normalizeText(text)
    .replace(APOSTROPHES, '')
    .split(NOT_WORD)
    .filter((w) => w !== '');
}

/** The distinct normalised words of `text`, in order of first appearance: what is stored for a title. */
export function tokenize(text: string): string[] {
  return [...new Set(words(text))];
}

/** Whether `text` has an Arabic letter: such a query searches the Arabic title, any other the English one. */
export function hasArabicLetter(text: string): boolean {
  return ARABIC_LETTER.test(text);
}

/** The stored tokens of a product's titles. */
export function titleTokens(title: { en: string; ar: string }): { en: string[]; ar: string[] } {
  return { en: tokenize(title.en), ar: tokenize(title.ar) };
}

export interface TitleSearch {
  language: SearchLanguage;
  /** Words that must each be a whole word of the title (all words of the query but the last). */
  whole: string[];
  /** The last word of the query: some word of the title must begin with it. */
  prefix: string;
}

/**
 * A search value as the query it means, or null when it has no word at all (only punctuation or spaces).
 * The caller bounds its length and word count (MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS).
 */
export function parseTitleSearch(value: string): TitleSearch | null {
  const all = words(value);
  if (all.length === 0) return null;
  const prefix = all[all.length - 1]!;
  return { language: hasArabicLetter(value) ? 'ar' : 'en', whole: [...new Set(all.slice(0, -1))], prefix };
}

/** Whether `tokens` (a stored title's) match `search`: the rule the data layer's query implements. */
export function matchesTitle(tokens: readonly string[], search: TitleSearch): boolean {
  return search.whole.every((w) => tokens.includes(w)) && tokens.some((t) => t.startsWith(search.prefix));
}
