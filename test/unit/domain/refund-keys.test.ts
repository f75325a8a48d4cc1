import { randomUUID } from 'node:crypto';
import { creditNoteOfRefundKey, isServiceRefundKey, serviceRefundKey } from '../../../domain/refund';
import { typedIdFromUuid } from '../../../domain/ids';
import { newId } from '../../../platform/ids';
import { merchantRefundKeySchema } from '../../../api/refunds/schemas';
import { olderRefundCreateBody } from '../../../api/older-refunds/schemas';

// A refund's idempotency key is the merchant's unless it is exactly a key the service makes for its own refunds
// (a return's, a credit note's, a card check's, a checkout session's), as payment-intent keys are.

const ids = {
  // Returns get theirs inside the checkout workflow, the others from the API.
  ret: typedIdFromUuid('ret', 'eu', randomUUID()),
  cn: newId('cn', 'eu'),
  bps: newId('bps', 'eu'),
  pi: newId('pi', 'eu'),
  cs: newId('cs', 'eu'),
};

const serviceKeys = [
  serviceRefundKey.ofReturn(ids.ret),
  serviceRefundKey.ofCreditNote(ids.cn),
  serviceRefundKey.ofCardCheck(ids.bps, ids.pi),
  serviceRefundKey.ofCheckoutSession(ids.cs, 'card_check'),
  serviceRefundKey.ofCheckoutSession(ids.cs, 'refund'),
  // What is left to give back after the merchant refunded some of it (api/refunds/service.ts giveBackPayment).
  serviceRefundKey.restOf(serviceRefundKey.ofCardCheck(ids.bps, ids.pi)),
  serviceRefundKey.restOf(serviceRefundKey.ofCheckoutSession(ids.cs, 'card_check')),
  serviceRefundKey.restOf(serviceRefundKey.ofCheckoutSession(ids.cs, 'refund')),
];

test.each(serviceKeys)('the service’s own key %s is refused on both refund interfaces', (key) => {
  expect(isServiceRefundKey(key)).toBe(true);
  expect(merchantRefundKeySchema.safeParse(key).success).toBe(false);
  const older = olderRefundCreateBody.safeParse({ transaction_id: 1, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key });
  expect(older.error?.issues.map((i) => i.path.join('.'))).toEqual(['checkout_intent_idempotency_key']);
});

test.each([
  'return:RMA-1001',
  'return:ret_eu_abc:2',
  'credit_note:2024-17',
  'credit_note:cn_eu_abc/1',
  'billing_portal:renewal',
  `billing_portal:${ids.bps}:${ids.pi}`,
  'checkout_session:abc',
  `checkout_session:${ids.cs}`,
  `checkout_session:${ids.cs}:other`,
  `checkout_session:${ids.cs}:card_check:rest:again`,
  `xreturn:${ids.ret}`,
])('a merchant’s key that only starts like one of the service’s is the merchant’s: %s', (key) => {
  expect(isServiceRefundKey(key)).toBe(false);
  expect(merchantRefundKeySchema.parse(key)).toBe(key);
  expect(creditNoteOfRefundKey(key)).toBeNull();
});

test("only a credit note's own key names the credit note to the intent's workflow", () => {
  expect(creditNoteOfRefundKey(serviceRefundKey.ofCreditNote(ids.cn))).toBe(ids.cn);
  // The ids of the recorded workflow histories (test/workflows) still read as credit notes.
  expect(creditNoteOfRefundKey(serviceRefundKey.ofCreditNote('cn_eu_tocard'))).toBe('cn_eu_tocard');
  expect(creditNoteOfRefundKey(null)).toBeNull();
  expect(creditNoteOfRefundKey('credit_note:order-7')).toBeNull();
});
