import { z } from 'zod';
import { parseOrThrow } from '../../../api/http/validate';
import { olderCreateBody } from '../../../api/older-payment-intents/schemas';
import { payoutCreateBody } from '../../../api/payouts/schemas';
import { planCreateBody } from '../../../api/plans/schemas';
import { DomainError } from '../../../domain/errors';

// A parameter the request needs but left out is `parameter_missing`, whether the schema's types say so or one of
// its rules does (a field required only without another); a value it gave wrong is `parameter_invalid`.

function refusal(schema: Parameters<typeof parseOrThrow>[0], body: unknown): { code: string; param: string | undefined } {
  try {
    parseOrThrow(schema, body, 'body');
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, param: err.param };
    throw err;
  }
  throw new Error('accepted');
}

test('the older create without checkout_intent: a missing amount or currency is parameter_missing, as a missing gateway is', () => {
  expect(refusal(olderCreateBody, { gateway: 'sandbox', currency: 'EUR' })).toEqual({ code: 'parameter_missing', param: 'amount' });
  expect(refusal(olderCreateBody, { gateway: 'sandbox', amount: 100 })).toEqual({ code: 'parameter_missing', param: 'currency' });
  expect(refusal(olderCreateBody, { amount: 100, currency: 'EUR' })).toEqual({ code: 'parameter_missing', param: 'gateway' });
  expect(refusal(olderCreateBody, { gateway: 'sandbox', amount: -1, currency: 'EUR' })).toEqual({ code: 'parameter_invalid', param: 'amount' });
});

test('a payout with no recipient at all is parameter_missing; one with two is parameter_invalid', () => {
  const payout = { amount: 5000, currency: 'NGN', gateway: 'sandbox' };
  expect(refusal(payoutCreateBody, payout)).toEqual({ code: 'parameter_missing', param: 'recipient_uuid' });
  const both = { ...payout, recipient_uuid: '7d3f0c1e-2b4a-4c6d-8e9f-0a1b2c3d4e5f', bank_account_number: '0123456789', bank_account_name: 'Ada', bank_code: '058' };
  expect(refusal(payoutCreateBody, both)).toEqual({ code: 'parameter_invalid', param: 'recipient_uuid' });
});

test('a required choice left out is parameter_missing; one given outside its options is parameter_invalid', () => {
  // zod reports a missing enum as a wrong value, not a wrong type (the other fields' missing case).
  const plan = { amount: 1000, currency: 'EUR' };
  expect(refusal(planCreateBody, plan)).toEqual({ code: 'parameter_missing', param: 'interval' });
  expect(refusal(planCreateBody, { ...plan, interval: 'fortnight' })).toEqual({ code: 'parameter_invalid', param: 'interval' });
  expect(refusal(planCreateBody, { ...plan, interval: null })).toEqual({ code: 'parameter_invalid', param: 'interval' });
});

test('a wrong choice inside a value a transform reshaped is parameter_invalid, not read as missing', () => {
  const listed = z.object({ a: z.string().transform((s) => s.split(',')).pipe(z.array(z.enum(['x']))) });
  expect(refusal(listed, { a: 'x,y' })).toEqual({ code: 'parameter_invalid', param: 'a[1]' });
  expect(refusal(listed, {})).toEqual({ code: 'parameter_missing', param: 'a' });
});
