// Adapter for our gateway sandbox (sandbox/app.ts), over real HTTP like any other gateway. Declines and
// rejections are data; a timeout, connection error or 5xx is thrown as a retryable failure (Temporal retries
// the activity; the idempotency key makes the retry safe), a 4xx as a non-retryable one (retrying the same
// bad request cannot help). A refused connection has its own retryable type: the request never reached the
// gateway, so nothing was applied and failing over to another connector is safe.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type {
  ChargedCard,
  ChargeOutcome,
  ChargeRequest,
  GatewayAdapter,
  GatewayCallback,
  PayoutOutcome,
  PayoutRequest,
  RecipientOutcome,
  RecipientRequest,
  RefundOutcome,
  RefundRequest,
} from './types';
import { referenceFromCallbackUrl } from './callback-url';

/**
 * Failure types, for retry policies: the first two are retried, the third is not. GATEWAY_UNREACHABLE means
 * the connection was refused: the request never reached the gateway. GATEWAY_UNAVAILABLE covers timeouts,
 * other connection errors and 5xx, after which the outcome may be unknown (reconcile by idempotency key).
 */
export const GATEWAY_UNAVAILABLE = 'GatewayUnavailable';
export const GATEWAY_UNREACHABLE = 'GatewayUnreachable';
export const GATEWAY_REQUEST_REJECTED = 'GatewayRequestRejected';

/** Request header that makes the sandbox behave like a broken connector (see sandbox/gateway-routes.ts). */
export const SANDBOX_BEHAVIOR_HEADER = 'Sandbox-Behavior';
/**
 * Where `behavior: 'down'` sends requests by default: a port nothing listens on (connection refused). Not
 * port 1: fetch refuses to dial it at all ("bad port", a blocked port of the Fetch standard), which is no
 * connection refused.
 */
export const DEFAULT_DOWN_URL = 'http://127.0.0.1:2';

/** Broken-connector drills: `down` refuses every connection, `timeout` never answers a charge. */
export type SandboxBehavior = 'down' | 'timeout';

/** Callbacks signed longer ago than this (or this far in the future) are refused as replays. */
export const CALLBACK_TOLERANCE_SECONDS = 5 * 60;
const SIGNATURE_HEADER = 'sandbox-signature';

export interface SandboxGatewayOptions {
  baseUrl: string;
  callbackSecret: string;
  /** Per request, including reading the body. */
  timeoutMs?: number;
  /**
   * A broken connector, for failover drills: `down` sends every request to `downUrl` (connection refused);
   * `timeout` sends every request with `Sandbox-Behavior: timeout` (the sandbox never answers a charge and
   * records nothing). Unset: a working connector.
   */
  behavior?: SandboxBehavior;
  /** Where `behavior: 'down'` sends requests. Default http://127.0.0.1:2, where nothing listens. */
  downUrl?: string;
}

// Response shapes: only what the adapter reads; extra fields are allowed so the sandbox can grow.
const failureFields = {
  failure_code: z.string().nullish(),
  failure_message: z.string().nullish(),
  reference: z.string().nullish(),
  callback_url: z.string().nullish(),
};
const chargeSchema = z.object({
  object: z.literal('charge'),
  id: z.string(),
  status: z.enum(['succeeded', 'declined', 'requires_action', 'pending']),
  challenge_url: z.string().nullish(),
  idempotency_key: z.string().nullish(),
  /** Whether the charge asked to save the card (setup_future_usage: off_session). */
  setup_future_usage: z.boolean().nullish(),
  card: z
    .object({ brand: z.string(), last4: z.string(), exp_month: z.number(), exp_year: z.number() })
    .nullish(),
  /** The reusable token a saving charge issued; null when the card allows none. */
  payment_method_token: z.string().nullish(),
  network_transaction_id: z.string().nullish(),
  ...failureFields,
});
const refundSchema = z.object({
  object: z.literal('refund'),
  id: z.string(),
  status: z.enum(['pending', 'succeeded', 'rejected', 'canceled']),
  ...failureFields,
});
const payoutSchema = z.object({
  object: z.literal('payout'),
  id: z.string(),
  status: z.enum(['pending', 'succeeded', 'rejected', 'failed', 'canceled']),
  ...failureFields,
});
const recipientSchema = z.object({
  object: z.literal('recipient'),
  id: z.string(),
  status: z.enum(['registered', 'rejected']),
  ...failureFields,
});
const callbackSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('charge'), data: chargeSchema }),
  z.object({ kind: z.literal('refund'), data: refundSchema }),
  z.object({ kind: z.literal('payout'), data: payoutSchema }),
]);
const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), param: z.string().nullish() }),
});

type ChargeJson = z.infer<typeof chargeSchema>;
type RefundJson = z.infer<typeof refundSchema>;
type PayoutJson = z.infer<typeof payoutSchema>;

function failure(json: { failure_code?: string | null; failure_message?: string | null }, fallback: string) {
  return { failureCode: json.failure_code ?? fallback, failureMessage: json.failure_message ?? fallback };
}

/** The card, for a charge that asked to save it (the only ones whose card the orchestrator keeps). */
function chargedCard(c: ChargeJson): ChargedCard | undefined {
  const savedIt = c.setup_future_usage === true || typeof c.payment_method_token === 'string';
  if (!c.card || !savedIt) return undefined;
  return {
    brand: c.card.brand,
    last4: c.card.last4,
    expMonth: c.card.exp_month,
    expYear: c.card.exp_year,
    reusableToken: c.payment_method_token ?? null,
  };
}

function toChargeOutcome(c: ChargeJson): ChargeOutcome {
  switch (c.status) {
    case 'succeeded': {
      const card = chargedCard(c);
      return {
        status: 'succeeded',
        chargeId: c.id,
        ...(c.network_transaction_id ? { networkTransactionId: c.network_transaction_id } : {}),
        ...(card ? { card } : {}),
      };
    }
    case 'pending':
      return { status: 'pending', chargeId: c.id };
    case 'declined':
      return { status: 'declined', chargeId: c.id, ...failure(c, 'card_declined') };
    case 'requires_action':
      if (!c.challenge_url) throw unavailable(`sandbox charge ${c.id} requires action without a challenge_url`);
      return { status: 'requires_action', chargeId: c.id, challengeUrl: c.challenge_url };
  }
}

function toRefundOutcome(r: RefundJson): RefundOutcome {
  switch (r.status) {
    case 'succeeded':
      return { status: 'succeeded', refundId: r.id };
    case 'pending':
      return { status: 'pending', refundId: r.id };
    case 'rejected':
      return { status: 'rejected', refundId: r.id, ...failure(r, 'refund_rejected') };
    case 'canceled':
      return { status: 'canceled', refundId: r.id };
  }
}

function toPayoutOutcome(p: PayoutJson): PayoutOutcome {
  switch (p.status) {
    case 'succeeded':
      return { status: 'succeeded', payoutId: p.id };
    case 'pending':
      return { status: 'pending', payoutId: p.id };
    case 'rejected':
      return { status: 'rejected', payoutId: p.id, ...failure(p, 'payout_rejected') };
    case 'failed':
      return { status: 'failed', payoutId: p.id, ...failure(p, 'processing_error') };
    case 'canceled':
      return { status: 'canceled', payoutId: p.id };
  }
}

function unavailable(message: string, cause?: Error): ApplicationFailure {
  return ApplicationFailure.create({ type: GATEWAY_UNAVAILABLE, message, nonRetryable: false, cause });
}

interface ErrorCause {
  code?: string;
  message?: string;
  errors?: Array<{ code?: string }>;
}

/** Whether fetch failed because the connection was refused (also when every address of a host refused). */
function connectionRefused(cause: ErrorCause | undefined): boolean {
  if (!cause) return false;
  if (cause.code === 'ECONNREFUSED') return true;
  return Array.isArray(cause.errors) && cause.errors.length > 0 && cause.errors.every((e) => e?.code === 'ECONNREFUSED');
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** Drops empty optional strings (blank form fields) so the gateway sees them as absent. */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

export class SandboxGateway implements GatewayAdapter {
  readonly name = 'sandbox';
  /** The broken-connector drill this adapter plays, if any. */
  readonly behavior: SandboxBehavior | undefined;
  private readonly baseUrl: string;
  private readonly callbackSecret: string;
  private readonly timeoutMs: number;
  private readonly extraHeaders: Record<string, string>;

  constructor({ baseUrl, callbackSecret, timeoutMs = 10_000, behavior, downUrl = DEFAULT_DOWN_URL }: SandboxGatewayOptions) {
    if (!callbackSecret) throw new Error('SandboxGateway: callbackSecret is required');
    this.behavior = behavior;
    this.baseUrl = (behavior === 'down' ? downUrl : baseUrl).replace(/\/+$/, '');
    this.callbackSecret = callbackSecret;
    this.timeoutMs = timeoutMs;
    this.extraHeaders = behavior === 'timeout' ? { [SANDBOX_BEHAVIOR_HEADER]: 'timeout' } : {};
  }

  async charge(req: ChargeRequest): Promise<ChargeOutcome> {
    const json = await this.call('POST', '/v1/charges', {
      idempotency_key: req.idempotencyKey,
      token: req.token,
      amount: req.amount,
      currency: req.currency,
      callback_url: req.callbackUrl,
      return_url: req.returnUrl,
      setup_future_usage: req.savePaymentMethod ? 'off_session' : undefined,
      merchant_initiated: req.merchantInitiated,
      agreement: req.agreement
        ? {
            reference: req.agreement.reference,
            type: req.agreement.type,
            network_transaction_id: present(req.agreement.networkTransactionId),
          }
        : undefined,
      reference: req.reference ?? referenceFromCallbackUrl(req.callbackUrl),
    });
    return toChargeOutcome(this.parse(chargeSchema, json, 'charge'));
  }

  async chargeStatus(chargeId: string): Promise<ChargeOutcome> {
    const json = await this.call('GET', `/v1/charges/${encodeURIComponent(chargeId)}`);
    return toChargeOutcome(this.parse(chargeSchema, json, 'charge'));
  }

  async findCharge(idempotencyKey: string): Promise<ChargeOutcome | null> {
    const json = await this.call('GET', `/v1/charges?idempotency_key=${encodeURIComponent(idempotencyKey)}`, undefined, { notFoundIsNull: true });
    return json === null ? null : toChargeOutcome(this.parse(chargeSchema, json, 'charge'));
  }

  async findRefund(idempotencyKey: string): Promise<RefundOutcome | null> {
    const json = await this.call('GET', `/v1/refunds?idempotency_key=${encodeURIComponent(idempotencyKey)}`, undefined, { notFoundIsNull: true });
    return json === null ? null : toRefundOutcome(this.parse(refundSchema, json, 'refund'));
  }

  async cancelRefund(idempotencyKey: string): Promise<RefundOutcome> {
    const json = await this.call('POST', '/v1/refunds/cancel', { idempotency_key: idempotencyKey });
    return toRefundOutcome(this.parse(refundSchema, json, 'refund'));
  }

  async refund(req: RefundRequest): Promise<RefundOutcome> {
    const json = await this.call('POST', '/v1/refunds', {
      idempotency_key: req.idempotencyKey,
      charge_id: req.chargeId,
      amount: req.amount,
      currency: req.currency,
      callback_url: req.callbackUrl,
      reference: req.reference ?? referenceFromCallbackUrl(req.callbackUrl),
    });
    return toRefundOutcome(this.parse(refundSchema, json, 'refund'));
  }

  async refundStatus(refundId: string): Promise<RefundOutcome> {
    const json = await this.call('GET', `/v1/refunds/${encodeURIComponent(refundId)}`);
    return toRefundOutcome(this.parse(refundSchema, json, 'refund'));
  }

  async registerRecipient(req: RecipientRequest): Promise<RecipientOutcome> {
    const json = await this.call('POST', '/v1/recipients', {
      idempotency_key: req.idempotencyKey,
      recipient_type: req.recipientType,
      bank_account_number: present(req.bankAccountNumber),
      bank_account_name: present(req.bankAccountName),
      bank_code: present(req.bankCode),
      mobile_money_number: present(req.mobileMoneyNumber),
      mobile_money_provider: present(req.mobileMoneyProvider),
      name: present(req.name),
    });
    const r = this.parse(recipientSchema, json, 'recipient');
    return r.status === 'registered'
      ? { status: 'registered', gatewayRecipientId: r.id }
      : { status: 'rejected', ...failure(r, 'recipient_rejected') };
  }

  async payout(req: PayoutRequest): Promise<PayoutOutcome> {
    // The gateway takes exactly one destination; a registered recipient wins over inline details.
    // The provider goes only with an inline wallet: a registered recipient carries its own.
    const destination = req.gatewayRecipientId
      ? { recipient_id: req.gatewayRecipientId }
      : req.bankAccountNumber
        ? { bank_account_number: req.bankAccountNumber }
        : { mobile_money_number: req.mobileMoneyNumber, mobile_money_provider: present(req.mobileMoneyProvider) };
    const json = await this.call('POST', '/v1/payouts', {
      idempotency_key: req.idempotencyKey,
      amount: req.amount,
      currency: req.currency,
      ...destination,
      narration: present(req.narration),
      callback_url: req.callbackUrl,
      reference: req.reference ?? referenceFromCallbackUrl(req.callbackUrl),
    });
    return toPayoutOutcome(this.parse(payoutSchema, json, 'payout'));
  }

  async payoutStatus(payoutId: string): Promise<PayoutOutcome> {
    const json = await this.call('GET', `/v1/payouts/${encodeURIComponent(payoutId)}`);
    return toPayoutOutcome(this.parse(payoutSchema, json, 'payout'));
  }

  async findPayout(idempotencyKey: string): Promise<PayoutOutcome | null> {
    return (await this.describePayout(idempotencyKey))?.outcome ?? null;
  }

  async cancelPayout(idempotencyKey: string): Promise<PayoutOutcome> {
    const json = await this.call('POST', '/v1/payouts/cancel', { idempotency_key: idempotencyKey });
    return toPayoutOutcome(this.parse(payoutSchema, json, 'payout'));
  }

  async describePayout(idempotencyKey: string): Promise<{ outcome: PayoutOutcome; raw: Record<string, unknown> } | null> {
    const json = await this.call('GET', `/v1/payouts?idempotency_key=${encodeURIComponent(idempotencyKey)}`, undefined, { notFoundIsNull: true });
    if (json === null) return null;
    // Parsed for the outcome; `raw` keeps every field, including ones this adapter does not read.
    const outcome = toPayoutOutcome(this.parse(payoutSchema, json, 'payout'));
    return { outcome, raw: json as Record<string, unknown> };
  }

  parseCallback(headers: Record<string, string | string[] | undefined>, rawBody: string): GatewayCallback | null {
    const signature = headerValue(headers, SIGNATURE_HEADER);
    if (!signature || !this.signatureValid(signature, rawBody)) return null;
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return null;
    }
    const parsed = callbackSchema.safeParse(body);
    if (!parsed.success) return null;
    const { data } = parsed.data;
    const reference = data.reference ?? referenceFromCallbackUrl(data.callback_url);
    if (!reference) return null; // nothing to route it to
    try {
      switch (parsed.data.kind) {
        case 'charge':
          return {
            kind: 'charge',
            reference,
            chargeId: parsed.data.data.id,
            ...(parsed.data.data.idempotency_key ? { idempotencyKey: parsed.data.data.idempotency_key } : {}),
            outcome: toChargeOutcome(parsed.data.data),
          };
        case 'refund':
          return { kind: 'refund', reference, refundId: parsed.data.data.id, outcome: toRefundOutcome(parsed.data.data) };
        case 'payout':
          return { kind: 'payout', reference, payoutId: parsed.data.data.id, outcome: toPayoutOutcome(parsed.data.data) };
      }
    } catch {
      return null; // e.g. requires_action without a challenge URL: not an outcome we can act on
    }
  }

  /** `t=<unix>,v1=<hex hmac-sha256 of "<t>.<body>">`; several v1 entries are allowed (secret rotation). */
  private signatureValid(header: string, rawBody: string): boolean {
    let timestamp: string | undefined;
    const candidates: string[] = [];
    for (const part of header.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim();
      if (key === 't') timestamp = value;
      else if (key === 'v1') candidates.push(value);
    }
    if (!timestamp || !/^\d{1,12}$/.test(timestamp) || candidates.length === 0) return false;
    const ageSeconds = Math.floor(Date.now() / 1000) - Number(timestamp);
    if (Math.abs(ageSeconds) > CALLBACK_TOLERANCE_SECONDS) return false;
    const expected = createHmac('sha256', this.callbackSecret).update(`${timestamp}.${rawBody}`).digest();
    let valid = false;
    for (const candidate of candidates) {
      if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
      // Constant-time comparison; lengths are equal by the format check above.
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) valid = true;
    }
    return valid;
  }

  private parse<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw unavailable(`sandbox answered an unexpected ${what} body: ${parsed.error.issues[0]?.message ?? ''}`);
    }
    return parsed.data;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>, opts: { notFoundIsNull?: boolean } = {}): Promise<unknown> {
    const what = `sandbox ${method} ${path}`;
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          accept: 'application/json',
          ...this.extraHeaders,
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError' || e.name === 'AbortError') {
        throw unavailable(`${what} timed out after ${this.timeoutMs} ms`, e);
      }
      const cause = (e as Error & { cause?: ErrorCause }).cause;
      if (connectionRefused(cause)) {
        throw ApplicationFailure.create({
          type: GATEWAY_UNREACHABLE,
          message: `${what} failed: connection refused by ${this.baseUrl} (ECONNREFUSED); the request was not sent`,
          nonRetryable: false,
          cause: e,
        });
      }
      throw unavailable(`${what} failed: ${cause?.code ?? cause?.message ?? e.message}`, e);
    }
    if (status >= 200 && status < 300) {
      try {
        return JSON.parse(text);
      } catch {
        throw unavailable(`${what} answered ${status} with a body that is not JSON`);
      }
    }
    if (status === 404 && opts.notFoundIsNull) return null;
    const error = (() => {
      try {
        const parsed = errorBodySchema.safeParse(JSON.parse(text));
        return parsed.success ? parsed.data.error : undefined;
      } catch {
        return undefined;
      }
    })();
    const detail = error ? `${error.code}: ${error.message}` : text.slice(0, 200);
    if (status >= 500 || status === 408 || status === 429) {
      throw unavailable(`${what} answered ${status} (${detail})`);
    }
    throw ApplicationFailure.create({
      type: GATEWAY_REQUEST_REJECTED,
      message: `${what} answered ${status} (${detail})`,
      nonRetryable: true,
      details: [{ status, code: error?.code ?? null, param: error?.param ?? null }],
    });
  }
}
