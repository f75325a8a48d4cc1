import { z } from 'zod';
import { webhooksSchema } from '../../../api/http/common-schemas';
import { parseOrThrow } from '../../../api/http/validate';

// A resource's `webhooks` as every create takes them (intents, refunds, subscriptions, checkout sessions):
// a URL listed twice would be delivered every event twice, so it is refused naming the repeat.

const body = z.object({ webhooks: webhooksSchema.optional() }).strict();
const refusal = (webhooks: unknown) => {
  try {
    parseOrThrow(body, { webhooks }, 'body');
    return null;
  } catch (err) {
    return { code: (err as { code?: string }).code, param: (err as { param?: string }).param, message: (err as Error).message };
  }
};

test('the same URL twice in one resource is a 400 naming the repeat', () => {
  const url = 'https://hooks.example.com/pay';
  expect(refusal([{ url, events: ['payment.success'] }, { url: 'https://hooks.example.com/other', events: ['payment.success'] }, { url, events: ['payment.canceled'] }])).toEqual({
    code: 'parameter_invalid',
    param: 'webhooks[2][url]',
    message: 'Invalid webhooks[2][url]: the same URL as webhooks[0][url]: list each URL once, with all the events it subscribes to',
  });
  // One receiver however its host is cased or its default port written.
  expect(refusal([{ url, events: ['payment.success'] }, { url: 'https://HOOKS.example.com:443/pay', events: ['payment.success'] }])).toMatchObject({ param: 'webhooks[1][url]' });
});

test('distinct URLs, and one URL with several events, are accepted', () => {
  expect(refusal([{ url: 'https://hooks.example.com/pay', events: ['payment.success', 'payment.canceled'] }, { url: 'https://hooks.example.com/pay?copy=1', events: ['payment.success'] }])).toBeNull();
  expect(refusal(undefined)).toBeNull();
  expect(refusal([])).toBeNull();
});

test("an event type the resource never sends is a 400 naming it, on each create's own list", async () => {
  const { createBodyV202607 } = await import('../../../api/payment-intents/schemas');
  const { refundCreateBody } = await import('../../../api/refunds/schemas');
  const { subscriptionCreateBody } = await import('../../../api/subscriptions/schemas');
  const url = 'https://hooks.example.com/in';
  const refused = (schema: z.ZodType, input: Record<string, unknown>) => {
    try {
      parseOrThrow(schema, input, 'body');
      return null;
    } catch (err) {
      return { code: (err as { code?: string }).code, param: (err as { param?: string }).param };
    }
  };
  const intent = { amount: 100, currency: 'EUR' };
  expect(refused(createBodyV202607, { ...intent, webhooks: [{ url, events: ['payment.success', 'invoice.paid'] }] })).toEqual({ code: 'parameter_invalid', param: 'webhooks[0][events][1]' });
  // An intent's endpoints hear the refund of an operator's force-cancel.
  expect(refused(createBodyV202607, { ...intent, webhooks: [{ url, events: ['payment.success', 'refund.success'] }] })).toBeNull();
  const refund = { payment_intent: 'pi_eu_0000000000000000000000', amount: 100, currency: 'EUR' };
  expect(refused(refundCreateBody, { ...refund, webhooks: [{ url, events: ['refund.success', 'payment.success'] }] })).toEqual({ code: 'parameter_invalid', param: 'webhooks[0][events][1]' });
  expect(refused(refundCreateBody, { ...refund, webhooks: [{ url, events: ['refund.success', 'refund.canceled'] }] })).toBeNull();
  const sub = { customer: 'cus_eu_0000000000000000000000', items: [{ plan: 'plan_eu_0000000000000000000000' }], default_payment_method: 'pm_eu_0000000000000000000000' };
  expect(refused(subscriptionCreateBody, { ...sub, webhooks: [{ url, events: ['invoice.paid', 'payment.success'] }] })).toEqual({ code: 'parameter_invalid', param: 'webhooks[0][events][1]' });
});
