import { hasArabicLetter, matchesTitle, normalizeText, parseTitleSearch, titleTokens, tokenize, words } from '../../../domain/text-search';

describe('normalizeText', () => {
  test.each([
    ['fatha, damma, kasra, sukun, shadda and tanween are removed', 'أَحْمَرُ', 'احمر'],
    ['every mark of U+064B–U+0652 is removed', 'ب\u064B\u064C\u064D\u064E\u064F\u0650\u0651\u0652', 'ب'],
    ['superscript alef (U+0670) is removed', 'هٰذا', 'هذا'],
    ['tatweel is removed', 'أحـــمر', 'احمر'],
    ['alef with hamza above is alef', 'أ', 'ا'],
    ['alef with hamza below is alef', 'إبريق', 'ابريق'],
    ['alef with madda is alef', 'آلة', 'اله'],
    ['alef wasla is alef', 'ٱلكتاب', 'الكتاب'],
    ['teh marbuta is heh', 'ساعة', 'ساعه'],
    ['alef maksura is yeh', 'مستشفى', 'مستشفي'],
    ['a decomposed alef + hamza is alef', 'ا\u0654حمر', 'احمر'],
    ['ؤ and ئ keep their hamza (only the alef forms are folded)', 'مسؤول رئيس', 'مسؤول رئيس'],
    ['Arabic presentation forms are the letters (NFKC)', '\uFEE3\uFEE4', 'مم'],
    ['lam-alef ligature is two letters', '\uFEFB', 'لا'],
    ['Arabic-Indic digits are ASCII digits', '١٢٣ ۴۵۶', '123 456'],
    ['Latin is lower case', 'Red T-SHIRT', 'red t-shirt'],
    ['Latin accents are removed', 'Crème Brûlée', 'creme brulee'],
    ['full-width Latin is ASCII', 'ＲＥＤ', 'red'],
  ])('%s', (_rule, input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  test('the spec example: "احمر" and "أحمر" are the same word', () => {
    expect(normalizeText('احمر')).toBe(normalizeText('أحمر'));
  });

  test('it is idempotent', () => {
    for (const s of ['أَحْمَـرُ', 'Crème', 'ساعةٌ ذكيّة', 'مستشفى']) expect(normalizeText(normalizeText(s))).toBe(normalizeText(s));
  });
});

describe('tokenize', () => {
  test('splits on anything that is not a letter, digit or mark', () => {
    expect(tokenize('Red T-shirt, size: XL (2026)')).toEqual(['red', 't', 'shirt', 'size', 'xl', '2026']);
  });

  test('normalises each word and keeps each once, in order of first appearance', () => {
    expect(tokenize('قميص أحمر - قميص احمر')).toEqual(['قميص', 'احمر']);
  });

  test('an apostrophe inside a word joins it', () => {
    expect(tokenize("Men's shoes")).toEqual(['mens', 'shoes']);
    expect(tokenize('Women’s hat')).toEqual(['womens', 'hat']);
  });

  test('mixed Arabic and Latin titles keep both', () => {
    expect(tokenize('هاتف iPhone ١٥')).toEqual(['هاتف', 'iphone', '15']);
  });

  test('nothing to tokenise is no token', () => {
    expect(tokenize('  - / !! ')).toEqual([]);
    expect(tokenize('')).toEqual([]);
  });

  test('words keeps repeats; titleTokens tokenises each language', () => {
    expect(words('red red')).toEqual(['red', 'red']);
    expect(titleTokens({ en: 'Red Shirt', ar: 'قميص أحمر' })).toEqual({ en: ['red', 'shirt'], ar: ['قميص', 'احمر'] });
  });
});

describe('search queries', () => {
  test('an Arabic letter anywhere makes an Arabic search; digits alone do not', () => {
    expect(hasArabicLetter('قميص')).toBe(true);
    expect(hasArabicLetter('shirt قميص')).toBe(true);
    expect(hasArabicLetter('shirt')).toBe(false);
    expect(hasArabicLetter('١٢٣')).toBe(false);
    expect(parseTitleSearch('red shirt')!.language).toBe('en');
    expect(parseTitleSearch('قميص')!.language).toBe('ar');
  });

  test('all words but the last are whole words; the last is a prefix', () => {
    expect(parseTitleSearch('Red  SH')).toEqual({ language: 'en', whole: ['red'], prefix: 'sh' });
    expect(parseTitleSearch('قميص أحم')).toEqual({ language: 'ar', whole: ['قميص'], prefix: 'احم' });
    expect(parseTitleSearch('shirt')).toEqual({ language: 'en', whole: [], prefix: 'shirt' });
  });

  test('a value with no word is no search', () => {
    expect(parseTitleSearch(' - ')).toBeNull();
  });

  test('matching: every word, any order, last word by prefix', () => {
    const red = tokenize('Red cotton shirt');
    const reddish = tokenize('Reddish shoe');
    const match = (q: string, tokens: string[]) => matchesTitle(tokens, parseTitleSearch(q)!);
    expect(match('shirt red', red)).toBe(true);
    expect(match('red sh', red)).toBe(true);
    expect(match('red sh', reddish)).toBe(false); // "red" is a whole word only when another word follows
    expect(match('red', reddish)).toBe(true);
    expect(match('red shoe', red)).toBe(false);
    expect(match('احمر', tokenize('قميص أَحْمَر'))).toBe(true);
  });
});
