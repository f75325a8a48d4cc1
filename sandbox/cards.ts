// Test cards and magic tokens. Like card networks' test modes, the outcome of a charge is decided by the
// card alone (and, for a saved card, by whether the customer is present), so tests and drills can pick a
// behaviour deterministically.

export type CardBehaviour =
  | 'success'
  | 'decline'
  | 'insufficient_funds'
  | 'three_ds'
  | 'async'
  | 'timeout'
  | 'capture_no_answer'
  | 'late_arrival'
  // Saved-card behaviours: how the card behaves once saved and charged off-session (merchant-initiated).
  | 'sca_on_mit' // succeeds customer-present without 3DS; its off-session charges demand 3DS
  | 'no_token' // succeeds customer-present, but the issuer allows no reusable token
  | 'mit_declines'; // succeeds customer-present; its off-session charges are declined insufficient_funds

/** Fixed tokens that work without tokenization (server-side tests, the worker's own drills). */
export const FIXED_TOKENS: Readonly<Record<string, CardBehaviour>> = {
  tok_success: 'success',
  tok_decline: 'decline',
  tok_insufficient_funds: 'insufficient_funds',
  tok_3ds: 'three_ds',
  tok_async: 'async',
  tok_timeout: 'timeout',
  // Lost-answer drills (unknown outcomes): the charge is captured but its HTTP answer never arrives; or the
  // request reaches the gateway only later (a status query by its key finds nothing until then).
  tok_capture_no_answer: 'capture_no_answer',
  tok_late_arrival: 'late_arrival',
  tok_sca_on_mit: 'sca_on_mit',
  tok_no_token: 'no_token',
  tok_mit_declines: 'mit_declines',
};

/** Test card numbers (digits only) for the hosted payment page; any other valid number succeeds. */
export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4242424242424242': 'success',
  '4000000000000002': 'decline',
  '4000000000009995': 'insufficient_funds',
  '4000000000003220': 'three_ds',
  '4000000000000077': 'async',
  '4000002760003184': 'sca_on_mit',
  '4000000000000341': 'mit_declines',
};

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'unknown';

/** What a charge JSON shows of the card charged. */
export interface CardDetails {
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

/**
 * The card behind a fixed token: the test card of the same behaviour when there is one (tok_decline is
 * •••• 0002, tok_sca_on_mit •••• 3184), otherwise 4242; all expire 12/2034.
 */
export function fixedTokenCard(token: string): CardDetails | undefined {
  const behaviour = FIXED_TOKENS[token];
  if (!behaviour) return undefined;
  const number = Object.keys(TEST_CARDS).find((n) => TEST_CARDS[n] === behaviour) ?? '4242424242424242';
  return { brand: cardBrand(number), last4: number.slice(-4), expMonth: 12, expYear: 2034 };
}

export interface CardError {
  code: 'invalid_number' | 'invalid_expiry_month' | 'invalid_expiry_year' | 'expired_card' | 'invalid_cvc';
  message: string;
  param: 'number' | 'exp_month' | 'exp_year' | 'cvc';
}

export interface ValidCard {
  number: string; // digits only
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number; // four digits
  behaviour: CardBehaviour;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): CardBrand {
  if (/^4/.test(digits)) return 'visa';
  if (/^3[47]/.test(digits)) return 'amex';
  const first4 = Number(digits.slice(0, 4));
  if (/^5[1-5]/.test(digits) || (first4 >= 2221 && first4 <= 2720)) return 'mastercard';
  return 'unknown';
}

/**
 * Validates raw card input as a browser form would send it (spaces allowed in the number, 2- or 4-digit
 * year). `now` is injectable so expiry checks are testable.
 */
export function validateCard(
  input: { number: string; expMonth: number; expYear: number; cvc: string },
  now: Date = new Date(),
): { ok: true; card: ValidCard } | { ok: false; error: CardError } {
  const digits = input.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) {
    return { ok: false, error: { code: 'invalid_number', message: 'Your card number is invalid.', param: 'number' } };
  }
  if (!Number.isInteger(input.expMonth) || input.expMonth < 1 || input.expMonth > 12) {
    return {
      ok: false,
      error: { code: 'invalid_expiry_month', message: "Your card's expiration month is invalid.", param: 'exp_month' },
    };
  }
  const expYear = input.expYear < 100 ? 2000 + input.expYear : input.expYear;
  if (!Number.isInteger(expYear) || expYear < 2000 || expYear > 2100) {
    return {
      ok: false,
      error: { code: 'invalid_expiry_year', message: "Your card's expiration year is invalid.", param: 'exp_year' },
    };
  }
  // A card is valid through the last day of its expiry month.
  const nowMonthIndex = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (expYear * 12 + (input.expMonth - 1) < nowMonthIndex) {
    return { ok: false, error: { code: 'expired_card', message: 'Your card has expired.', param: 'exp_year' } };
  }
  const brand = cardBrand(digits);
  const cvcLength = brand === 'amex' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvcLength}}$`).test(input.cvc.trim())) {
    return { ok: false, error: { code: 'invalid_cvc', message: "Your card's security code is invalid.", param: 'cvc' } };
  }
  return {
    ok: true,
    card: {
      number: digits,
      brand,
      last4: digits.slice(-4),
      expMonth: input.expMonth,
      expYear,
      behaviour: TEST_CARDS[digits] ?? 'success',
    },
  };
}
