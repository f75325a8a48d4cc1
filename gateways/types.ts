// The gateway adapter contract. Activities call gateways only through this interface; adding a gateway
// means writing one adapter and registering it in ./registry.ts. A decline is data, not an exception:
// adapters throw only for technical failures (timeouts, 5xx, unreachable), which Temporal retries.

export interface ChargeRequest {
  /** Our idempotency key for the effect; the gateway must apply a repeated key once. */
  idempotencyKey: string;
  token: string;
  amount: number; // minor units
  currency: string;
  /** Where the gateway posts asynchronous outcomes (async charges, 3DS completion). */
  callbackUrl: string;
  /** Where the customer's browser goes after a 3DS challenge. */
  returnUrl: string;
  /**
   * Customer present and the card is to be saved: the gateway issues a reusable token with the charge
   * (ChargeOutcome.card.reusableToken), unless the card cannot be reused.
   */
  savePaymentMethod?: boolean;
  /** Merchant-initiated (saved card, customer absent): `token` is the reusable token of a saved card. */
  merchantInitiated?: boolean;
  /** The agreement a merchant-initiated charge is made under, as card networks expect it. */
  agreement?: ChargeAgreement;
  /**
   * Our id for the effect (pi_, re_, payout uuid), echoed by the gateway in callbacks so they can be routed
   * even when the callback URL is rewritten. Adapters may derive it from callbackUrl when absent.
   */
  reference?: string;
}

export interface ChargeAgreement {
  /** Our agreement id (`agr_...`): the gateway ties the charges of one agreement together by it. */
  reference: string;
  type: 'RECURRING' | 'INSTALLMENT' | 'UNSCHEDULED';
  /** The network transaction id of the agreement's first charge: sent from the second charge on. */
  networkTransactionId?: string;
}

/** The card a charge was made with, and the reusable token the gateway issued when asked to save it. */
export interface ChargedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  /** null: the gateway issued no reusable token (the card cannot be charged off-session). */
  reusableToken: string | null;
}

export type ChargeOutcome =
  | {
      status: 'succeeded';
      chargeId: string;
      /** The card network's reference of this charge (what later merchant-initiated charges send). */
      networkTransactionId?: string;
      /** Present when the charge asked to save the card (savePaymentMethod). */
      card?: ChargedCard;
    }
  | { status: 'declined'; chargeId?: string; failureCode: string; failureMessage: string }
  | { status: 'requires_action'; chargeId: string; challengeUrl: string }
  | { status: 'pending'; chargeId: string };

export interface RefundRequest {
  idempotencyKey: string;
  chargeId: string;
  amount: number;
  currency: string;
  callbackUrl: string;
  /**
   * Our id for the effect (pi_, re_, payout uuid), echoed by the gateway in callbacks so they can be routed
   * even when the callback URL is rewritten. Adapters may derive it from callbackUrl when absent.
   */
  reference?: string;
}

export type RefundOutcome =
  | { status: 'succeeded'; refundId: string }
  | { status: 'pending'; refundId: string }
  /** Canceled at our request before the gateway executed it: no money moved. */
  | { status: 'canceled'; refundId: string }
  | { status: 'rejected'; refundId?: string; failureCode: string; failureMessage: string };

export interface RecipientRequest {
  idempotencyKey: string;
  recipientType: 'bank_account' | 'mobile_money';
  bankAccountNumber?: string;
  bankAccountName?: string;
  bankCode?: string;
  mobileMoneyNumber?: string;
  mobileMoneyProvider?: string;
  name?: string;
}

export type RecipientOutcome =
  | { status: 'registered'; gatewayRecipientId: string }
  | { status: 'rejected'; failureCode: string; failureMessage: string };

export interface PayoutRequest {
  idempotencyKey: string;
  amount: number;
  currency: string;
  gatewayRecipientId?: string;
  bankAccountNumber?: string;
  mobileMoneyNumber?: string;
  /** The wallet's network (e.g. `MTN`) for an inline mobile money number; a registered recipient has its own. */
  mobileMoneyProvider?: string;
  /** Shown on the recipient's statement. */
  narration?: string;
  callbackUrl: string;
  /**
   * Our id for the effect (pi_, re_, payout uuid), echoed by the gateway in callbacks so they can be routed
   * even when the callback URL is rewritten. Adapters may derive it from callbackUrl when absent.
   */
  reference?: string;
}

export type PayoutOutcome =
  | { status: 'succeeded'; payoutId: string }
  | { status: 'pending'; payoutId: string }
  | { status: 'rejected'; payoutId?: string; failureCode: string; failureMessage: string }
  | { status: 'failed'; payoutId?: string; failureCode: string; failureMessage: string }
  /** Canceled at our request before the gateway executed it: no money moved. */
  | { status: 'canceled'; payoutId?: string };

/** An asynchronous outcome a gateway pushed to our callback ingress, after its signature was verified. */
export type GatewayCallback =
  | { kind: 'charge'; reference: string; chargeId: string; idempotencyKey?: string; outcome: ChargeOutcome }
  | { kind: 'refund'; reference: string; refundId: string; outcome: RefundOutcome }
  | { kind: 'payout'; reference: string; payoutId: string; outcome: PayoutOutcome };

export interface GatewayAdapter {
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeOutcome>;
  /** Current state of a charge, e.g. after a 3DS challenge or when a callback is late. */
  chargeStatus(chargeId: string): Promise<ChargeOutcome>;
  /**
   * The charge made under our idempotency key, or null when the gateway has none: how a charge whose answer
   * was lost (timeout, dropped connection) is reconciled. Never guess from silence.
   */
  findCharge(idempotencyKey: string): Promise<ChargeOutcome | null>;
  refund(req: RefundRequest): Promise<RefundOutcome>;
  refundStatus(refundId: string): Promise<RefundOutcome>;
  /** The refund made under our idempotency key, or null when the gateway has none. */
  findRefund(idempotencyKey: string): Promise<RefundOutcome | null>;
  /**
   * Asks the gateway not to execute the refund made (or still to be made) under this key. Answers the
   * refund's final state: `canceled` when no money will move, or what it already became.
   */
  cancelRefund(idempotencyKey: string): Promise<RefundOutcome>;
  registerRecipient(req: RecipientRequest): Promise<RecipientOutcome>;
  payout(req: PayoutRequest): Promise<PayoutOutcome>;
  payoutStatus(payoutId: string): Promise<PayoutOutcome>;
  /** The payout made under our idempotency key, or null when the gateway has none. */
  findPayout(idempotencyKey: string): Promise<PayoutOutcome | null>;
  /**
   * Asks the gateway not to execute the payout made (or still to be made) under this key; answers its final
   * state: `canceled` when no money will move, or what it already became.
   */
  cancelPayout(idempotencyKey: string): Promise<PayoutOutcome>;
  /**
   * The gateway's own current view of a payout, for the merchant-facing status endpoint: the parsed outcome
   * plus the gateway's raw JSON object. null when the gateway has none under this key.
   */
  describePayout(idempotencyKey: string): Promise<{ outcome: PayoutOutcome; raw: Record<string, unknown> } | null>;
  /**
   * Verifies and parses a callback body. `reference` is the id we put in callbackUrl (pi_, re_, payout uuid).
   * Returns null when the signature does not verify.
   */
  parseCallback(headers: Record<string, string | string[] | undefined>, rawBody: string): GatewayCallback | null;
}
