import { z } from 'zod';
import { ISO_4217, MAX_AMOUNT } from '../../domain/money';
import { isServiceIntentKey, SERVICE_INTENT_KEY_SHAPES } from '../../domain/intent-keys';
import { canonicalWebhookUrl } from '../../data/webhook-endpoints';

// Field schemas shared by several resources.

export const currencySchema = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'a 3-letter ISO 4217 code')
  .transform((c) => c.toUpperCase())
  .refine((c) => ISO_4217.has(c), 'an ISO 4217 currency code')
  // The document lists the codes (any case is accepted), so what it calls valid is valid.
  .meta({ enum: [...ISO_4217].sort() });

export const amountSchema = z.number().int('an integer in minor units').min(0).max(MAX_AMOUNT);

/**
 * A phone number as merchants' systems hold them: digits with the usual separators (spaces, dots, slashes,
 * dashes, brackets) and an extension (`+1 (555) 123.4567 x12`, `0151/12345678`). Not a format check beyond
 * that: one unusual spelling from a CRM must not stop a payment from being created.
 */
export const phoneNumberSchema = z
  .string()
  .trim()
  .regex(/^\+? ?\(?[0-9][0-9 ()./-]{2,30}[0-9](?: ?(?:[xX]|[eE][xX][tT]\.?) ?[0-9]{1,6})?$/, 'a phone number such as +4915112345678 (separators and an extension such as x12 are kept)');

/**
 * Why a key of a free-form object could not be stored, or null. MongoDB reads a `$` prefix as an operator
 * and a dot as a path, BSON ends a key at NUL, and the driver takes a `_bsontype` key for a type tag: each
 * fails the write with a server error, after the request's side writes. Refused here instead, with a 400.
 */
export function unstorableKeyReason(key: string): string | null {
  if (key.startsWith('$')) return "a key may not start with '$'";
  if (key.includes('.')) return "a key may not contain '.'";
  if (key.includes('\u0000')) return 'a key may not contain a NUL character';
  if (key === '_bsontype') return "'_bsontype' is a reserved key";
  return null;
}

/** The same rule as JSON Schema, so /openapi.json says which keys are refused. */
const storableKeyJsonSchema = (maxLength: number) => ({
  type: 'string' as const,
  minLength: 1,
  maxLength,
  pattern: '^[^$.\\u0000][^.\\u0000]*$',
  not: { const: '_bsontype' },
});

/**
 * A free-form object the API stores (metadata, and any like it): string keys MongoDB can store, each
 * refused one named as `<param>[<key>]`. Every free-form object accepted from a client goes through this.
 */
export function storableRecord<V extends z.ZodType>(value: V, limits: { maxKeys: number; maxKeyLength: number }) {
  return z
    .record(z.string(), value)
    .superRefine((obj, ctx) => {
      const keys = Object.keys(obj);
      if (keys.length > limits.maxKeys) ctx.addIssue({ code: 'custom', message: `at most ${limits.maxKeys} keys` });
      for (const key of keys) {
        let reason = unstorableKeyReason(key);
        if (key.length === 0) reason = 'a key may not be empty';
        // In code points, as values and JSON Schema's maxLength count (an emoji is one character, not two).
        if ([...key].length > limits.maxKeyLength) reason = `keys are at most ${limits.maxKeyLength} characters`;
        if (reason) ctx.addIssue({ code: 'custom', path: [key], message: reason });
      }
    })
    .meta({ maxProperties: limits.maxKeys, propertyNames: storableKeyJsonSchema(limits.maxKeyLength) });
}

/** Metadata as Stripe bounds it: 50 keys, keys up to 40 characters, values up to 500. */
export const metadataSchema = storableRecord(z.string().max(500), { maxKeys: 50, maxKeyLength: 40 });

export const EVENT_TYPES = [
  'payment.success',
  'payment.canceled',
  'payment.attempt_failed',
  'refund.success',
  'refund.canceled',
  'subscription.created',
  'subscription.updated',
  'subscription.canceled',
  'invoice.created',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

/** A secret sent back in an HTTP header (Service-Webhook-Secret), which carries only visible ASCII. */
export const headerSecretSchema = z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/, 'visible ASCII characters only');

/**
 * The webhook event types, a closed list: the spec's table (its "complete list: not shown" is settled here).
 * A type outside it is refused with a 400 naming `webhooks[i][events][j]`, so a typo never subscribes to
 * nothing; the list is published in the OpenAPI document as the `WebhookEventType` component.
 */
export const webhookEventTypeSchema = z.enum(EVENT_TYPES).meta({
  id: 'WebhookEventType',
  description:
    'A webhook event type, `<object>.<event>`. The list is closed: any other value, well-formed or not, is refused with 400, and so is a type the resource never sends (an invoice event on a payment intent). payment.success, payment.canceled and payment.attempt_failed are sent to the payment intent\'s `webhooks`; refund.success and refund.canceled to the refund\'s own `webhooks` (and, for the refund of an operator\'s force-cancel, which has none, to the intent\'s); subscription.* and invoice.* (recurring billing) to the subscription\'s `webhooks`, their `data` being the subscription or invoice as its retrieve answers it.',
});

/**
 * A webhook URL, taken in its canonical spelling (canonicalWebhookUrl): the one receiver however it is written is one
 * endpoint (health, disabling, in-flight cap, replay), and a URL listed twice in one resource is a repeat.
 */
export const webhookUrlSchema = z.url({ protocol: /^https?$/ }).max(2048).overwrite(canonicalWebhookUrl);

export const webhookEndpointSchema = z
  .object({
    url: webhookUrlSchema.describe('Receiving address'),
    secret: headerSecretSchema.optional().describe('Sent back on every delivery in the header Service-Webhook-Secret'),
    events: z
      .array(webhookEventTypeSchema)
      .min(1)
      .max(EVENT_TYPES.length)
      .describe('The event types this endpoint subscribes to, from the closed list WebhookEventType'),
  })
  .strict()
  .describe('A webhook endpoint, configured independently of the others');

/**
 * A resource's endpoints. A URL listed twice is refused (400 naming the repeat's `webhooks[i][url]`): each
 * entry is delivered independently, so it would get every event twice; give one entry the union of the events.
 */
export const webhooksSchema = z
  .array(webhookEndpointSchema)
  .max(10)
  .superRefine((endpoints, ctx) => {
    const seen = new Map<string, number>();
    endpoints.forEach((e, i) => {
      const first = seen.get(e.url);
      if (first === undefined) seen.set(e.url, i);
      else ctx.addIssue({ code: 'custom', path: [i, 'url'], message: `the same URL as webhooks[${first}][url]: list each URL once, with all the events it subscribes to` });
    });
  });

/**
 * A resource's endpoints, their events limited to those the resource sends: an endpoint subscribed only to events
 * that never reach it would hear nothing, silently (as a typo would, which the closed list refuses).
 */
export function webhooksFor(sends: readonly (typeof EVENT_TYPES)[number][], resource: string) {
  return webhooksSchema.superRefine((endpoints, ctx) => {
    endpoints.forEach((e, i) =>
      e.events.forEach((type, j) => {
        if (!sends.includes(type))
          ctx.addIssue({ code: 'custom', path: [i, 'events', j], message: `${resource} never sends ${type}: its events are ${sends.join(', ')}` });
      }),
    );
  });
}

/** The last second of year 9999: the latest instant a Unix-seconds input may name (Stripe's bound too). */
export const MAX_UNIX_SECONDS = 253_402_300_799;

/** An instant in Unix seconds (billing's times, as Stripe's), up to MAX_UNIX_SECONDS. */
export const unixSecondsSchema = z.number().int('an integer (Unix seconds)').min(0).max(MAX_UNIX_SECONDS);

export const idempotencyKeySchema = z.string().min(1).max(255);
/** A merchant's payment-intent key: not one of the keys the service gives its own intents. */
export const merchantIntentKeySchema = idempotencyKeySchema.refine((k) => !isServiceIntentKey(k), `keys shaped ${SERVICE_INTENT_KEY_SHAPES} are the service’s own`);

export const typedId = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[a-z]{2,8}_[0-9A-Za-z]{8,64}$`), `a ${prefix}_... id`);

/** The older interface's webhooks: `webhook_urls` sharing one `webhook_secret` (Service-Webhook-Secret). */
export function sharedSecretWebhookFields(urlsDescription: string) {
  return {
    webhook_urls: z.array(webhookUrlSchema).max(10).optional().meta({ description: urlsDescription }),
    webhook_secret: headerSecretSchema.optional().meta({ description: 'Sent to every webhook_urls entry in the header Service-Webhook-Secret' }),
  };
}
