import { cardBrand, luhnValid, validateCard } from '../../../sandbox/cards';
import { type ErrorJson, key, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

interface TokenJson {
  id: string;
  object: 'token';
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
}

const { h, receiver } = useSandbox();

const nextYear = new Date().getUTCFullYear() + 1;
const ORIGIN = 'https://pay.example.test';

function tokenize(card: Record<string, unknown>) {
  return h.http<TokenJson & ErrorJson>('POST', '/v1/tokens', card, { origin: ORIGIN });
}

async function chargeWith(token: string) {
  return h.adapter.charge({
    idempotencyKey: key('tok'),
    token,
    amount: 1000,
    currency: 'EUR',
    callbackUrl: receiver.url('pi_tok'),
    returnUrl: RETURN_URL,
  });
}

describe('tokenization', () => {
  it.each([
    ['4242 4242 4242 4242', 'succeeded', undefined],
    ['4000 0000 0000 0002', 'declined', 'card_declined'],
    ['4000 0000 0000 9995', 'declined', 'insufficient_funds'],
    ['4000 0000 0000 3220', 'requires_action', undefined],
    ['4000 0000 0000 0077', 'pending', undefined],
    ['5555 5555 5555 4444', 'succeeded', undefined],
  ])('card %s tokenizes and charges as %s', async (number, status, failureCode) => {
    const res = await tokenize({ number, exp_month: 12, exp_year: nextYear, cvc: '123' });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.json.id).toMatch(/^tok_[0-9a-f]{24}$/);
    expect(res.json.card).toEqual({
      brand: number.startsWith('5') ? 'mastercard' : 'visa',
      last4: number.slice(-4),
      exp_month: 12,
      exp_year: nextYear,
    });
    const outcome = await chargeWith(res.json.id);
    expect(outcome.status).toBe(status);
    if (failureCode) expect(outcome).toMatchObject({ failureCode });
  });

  it('accepts form-style strings and a two-digit year', async () => {
    const res = await tokenize({ number: '4242-4242-4242-4242', exp_month: '07', exp_year: String(nextYear % 100), cvc: '999' });
    expect(res.status).toBe(201);
    expect(res.json.card).toMatchObject({ exp_month: 7, exp_year: nextYear });
  });

  it('mints a distinct token each time', async () => {
    const card = { number: '4242424242424242', exp_month: 1, exp_year: nextYear, cvc: '123' };
    const [a, b] = await Promise.all([tokenize(card), tokenize(card)]);
    expect(a.json.id).not.toBe(b.json.id);
  });

  it.each([
    [{ number: '4242 4242 4242 4241' }, 'invalid_number', 'number'],
    [{ number: '4242' }, 'invalid_number', 'number'],
    [{ exp_month: 13 }, 'invalid_expiry_month', 'exp_month'],
    [{ exp_month: 1, exp_year: 2020 }, 'expired_card', 'exp_year'],
    [{ cvc: '12' }, 'invalid_cvc', 'cvc'],
    [{ cvc: 'abc' }, 'invalid_cvc', 'cvc'],
    [{ number: '3782 822463 10005', cvc: '123' }, 'invalid_cvc', 'cvc'],
    [{ exp_month: 'soon' }, 'parameter_invalid', 'exp_month'],
    [{ cvc: undefined }, 'parameter_invalid', 'cvc'],
  ])('rejects %j with 400 %s', async (change, code, param) => {
    const res = await tokenize({ number: '4242424242424242', exp_month: 12, exp_year: nextYear, cvc: '123', ...change });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.json).toEqual({ error: { code, message: expect.any(String), param } });
  });

  it('answers the CORS preflight for any origin, POST and Content-Type', async () => {
    const res = await fetch(`${h.baseUrl}/v1/tokens`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toBe('content-type');
  });

  it('keeps CORS to the tokens endpoint', async () => {
    const res = await h.http('GET', '/healthz', undefined, { origin: ORIGIN });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('card rules', () => {
  it('checks Luhn and brands', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('2221000000000009')).toBe('mastercard');
    expect(cardBrand('6011111111111117')).toBe('unknown');
  });

  it('treats a card as valid through the end of its expiry month', () => {
    const now = new Date('2030-06-30T23:00:00Z');
    const card = { number: '4242424242424242', cvc: '123' };
    expect(validateCard({ ...card, expMonth: 6, expYear: 2030 }, now).ok).toBe(true);
    expect(validateCard({ ...card, expMonth: 5, expYear: 2030 }, now)).toMatchObject({
      ok: false,
      error: { code: 'expired_card' },
    });
    expect(validateCard({ ...card, expMonth: 6, expYear: 30 }, now).ok).toBe(true);
  });
});
