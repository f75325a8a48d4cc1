// Shapes of the documents kept in MongoDB. `_id` is the public typed id; `tenant_id` scopes every
// merchant-owned record; `version` orders writes from a workflow so a late write never wins.

import type { ReturnStatus } from '../domain/returns';
import type { PayoutBaseStatus, PayoutSubStatus, RecipientType } from '../domain/payouts';

export interface TenantRecord {
  _id: string; // ten_<region>_...
  /** From the `tenants` sequence (data/sequences.ts): the integer `tenant_id` of the older interface. */
  number: number;
  name: string;
  region: string;
  /** How long this tenant's payouts may take before they are canceled at the gateway; unset: 72 hours. */
  payout_timeout_seconds?: number;
  created_at: Date;
}

/** A block of an integer sequence, reserved by inserting it: the unique `_id` is the only guard (data/sequences.ts). */
export interface SequenceBlockRecord {
  _id: string; // `${name}:${block}`
  name: string;
  block: number; // 1, 2, ...: numbers (block - 1) * size + 1 .. block * size
  size: number;
  created_at: Date;
}

export interface ApiKeyRecord {
  _id: string; // lookup id, the 16 characters after the key's prefix
  tenant_id: string;
  region: string;
  kind: 'secret' | 'publishable';
  hash: string; // HMAC-SHA256(KEY_HASH_SECRET, full key), hex
  claims: string[];
  created_at: Date;
  revoked_at: Date | null;
}

export interface ConnectorRecord {
  _id: string; // con_...
  tenant_id: string;
  gateway: string;
  live: boolean;
  payment_methods: string[];
  payouts: boolean;
  /**
   * A broken sandbox connector for failover drills (sandbox gateway only): `down` refuses connections,
   * `timeout` never answers a charge (status queries find none).
   */
  sandbox_behavior?: SandboxBehavior | null;
  created_at: Date;
}

export type SandboxBehavior = 'down' | 'timeout';

export interface PaymentFormRecord {
  _id: string; // pf_...
  tenant_id: string;
  connectors: string[];
  payment_methods: string[] | null; // null: the connectors' methods
  default: boolean;
  live: boolean;
  created_at: Date;
}

export interface OrchestratorRecord {
  _id: string; // orc_...
  tenant_id: string;
  connectors: string[];
  strategy: 'priority';
  live: boolean;
  /** The tenant's default orchestrator: unpinned intents try its connectors in turn. The newest default wins. */
  default?: boolean;
  created_at: Date;
}

export interface AddressFields {
  line1?: string;
  line2?: string;
  city?: string;
  state?: string;
  postal_code?: string;
  country?: string;
}

/**
 * A create answered under the `Idempotency-Key` header on a route whose body has no key field
 * (api/http/header-replay.ts): `_id` is `<tenant>:<key>`; while `running` the first request is still being
 * answered, then `done` holds its answer for a repeat.
 */
export interface ReplayedRequestRecord {
  _id: string;
  tenant_id: string;
  /** `POST /v202607/customers`: a key is one request's, so another route under it is refused. */
  route: string;
  /** sha256 of the route, path parameters and validated body (data/keyed-create.ts). */
  fingerprint: string;
  state: 'running' | 'done';
  started_at: Date;
  status?: number;
  /** The answer's body as JSON text: a merchant's metadata keys may hold `.` or `$`, which a stored document's may not. */
  body?: string;
  headers?: Record<string, string>;
}

export interface CustomerRecord {
  _id: string; // cus_...
  tenant_id: string;
  reference: string | null;
  /** `<tenant>:<reference>`, or the id when there is none: unique, so two upserts cannot both create. */
  reference_scope: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone_number: string | null;
  address: AddressFields | null;
  /** The test clock (`clock_...`) the customer lives on, set at create for good; absent on older records. */
  test_clock?: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface WebhookEndpoint {
  url: string;
  secret?: string;
  events: string[];
}

export type PinKind = 'payment_form' | 'orchestrator' | 'connector';

export interface PaymentIntentRecord {
  _id: string; // pi_...
  tenant_id: string;
  region: string;
  status: 'pending' | 'success' | 'canceled';
  amount: number;
  currency: string;
  customer: string | null;
  metadata: Record<string, string>;
  /** Endpoints without their secrets, which live in webhook_secrets (see api/webhook-endpoints.ts). */
  webhooks: { url: string; events: string[]; secretRef?: string }[];
  return_url: string | null;
  pin: { kind: PinKind; id: string } | null;
  /** Connectors the hosted page may use, resolved at create (the pin, or the tenant's live ones). */
  connectors: string[];
  /** The connectors come from an orchestrator: an attempt fails over to the next when one is unavailable. */
  failover?: boolean;
  /** v202608 `setup_future_usage: "off_session"`: the hosted page and embedded form offer to save the card. */
  setup_future_usage?: 'off_session' | null;
  /** The saved card this intent was paid with (saved by its payment, or charged by POST /cards/mit). */
  payment_method?: string | null;
  /** Its merchant-initiated charges (`ti_...`), written by its workflow. */
  transactions?: TransactionRecord[];
  /** The workflow that made it (a commerce checkout), told of its end. */
  owner?: string | null;
  timeout_seconds: number;
  idempotency_key: string | null;
  /** `<tenant>:<idempotency_key>`, or the id: a unique single-field key that behaves alike on MongoDB and FerretDB. */
  idempotency_scope: string;
  api_version: string;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  /** 0 when written by the API's create; each later write comes from the workflow with a higher version. */
  version: number;
  succeeded_at?: Date | null;
  canceled_at?: Date | null;
  cancellation_reason?: 'requested' | 'expired' | 'checkout_completed' | null;
  amount_paid?: number;
  amount_refunded?: number;
  connector_used?: string | null;
  gateway_charge_id?: string | null;
  last_failure_code?: string | null;
  // ---- the older interface (api/older-payment-intents). Intents from before it have none of these; the
  // API gives them their numbers at start (data/payment-intents.ts ensureOlderIds).
  /** The UUID the older interface names the intent by. */
  uuid?: string;
  /** The integer `payment_intent_secret`, from the `payment_intents` sequence. */
  payment_intent_secret?: number;
  /** The integer `transaction_id` of its successful payment (older refunds name it), reserved at create, shown once paid. */
  transaction_id?: number;
  /** The gateway the older create bound it to (null: any of the tenant's live connectors). */
  gateway?: string | null;
  /** The checkout intent (its UUID) it belongs to. */
  checkout_intent?: string | null;
  human_friendly_payment_intent_secret?: string | null;
  final_success_url?: string | null;
  final_failure_url?: string | null;
  feature_flag?: string | null;
  /** The hosted page's language (a `?lg=` on the page overrides it). */
  lg?: string | null;
  line_items?: LineItem[];
  /** The merchant's free JSON, kept as its JSON text (any keys, nested: MongoDB refuses `$` and `.` keys). */
  payload_json?: string | null;
  /** The customer's contact when the intent was created, whichever version made it (the older interface's tenant_initial_user_data). */
  contact?: { phone_number: string | null; email: string | null };
  /** webhook_urls of the older interface (and of its checkout intent): they receive the older body. */
  legacy_webhooks?: { url: string; secretRef?: string }[];
  /** Written by the workflow from its state (domain/older-views.ts documents the mapping). */
  sub_status?: string;
  step_number?: number;
  last_reason?: string | null;
}

/** A line of the purchase, shown on the hosted page (older create's `line_items`). */
export interface LineItem {
  name: string;
  quantity: number;
  price: number;
  image?: string;
  category?: string;
  slug?: string;
  url?: string;
}

/** A checkout intent: one purchase, whose payment intents (one per gateway tried) can pay it at most once. */
export interface CheckoutIntentRecord {
  _id: string; // UUID
  tenant_id: string;
  region: string;
  amount: number;
  currency: string;
  gateways: string[];
  idempotency_key: string | null;
  idempotency_scope: string;
  legacy_webhooks: { url: string; secretRef?: string }[];
  final_success_url: string | null;
  final_failure_url: string | null;
  human_friendly_payment_intent_secret: string | null;
  lg: string | null;
  line_items: LineItem[];
  payload_json: string | null;
  /** The timeout of each payment intent created under it (unless that create gives its own). */
  payment_intent_timeout_seconds: number;
  /** Set by the payment intent that won the claim (checkout_intent_claims): then it is `completed`. */
  status: 'open' | 'completed';
  payment_intent: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The one claim of a checkout intent's success: its unique `_id` lets only one payment intent succeed. */
export interface CheckoutIntentClaimRecord {
  _id: string; // the checkout intent's UUID
  tenant_id: string;
  payment_intent: string;
  created_at: Date;
}

export interface RefundRecord {
  _id: string; // re_...
  tenant_id: string;
  payment_intent: string;
  status: 'pending' | 'success' | 'canceled';
  amount: number;
  currency: string;
  idempotency_key: string | null;
  idempotency_scope: string;
  webhooks: { url: string; events: string[]; secretRef?: string }[];
  refund_sla_timeout: number;
  sla_expires_at: Date;
  gateway_transaction_id: string | null;
  failure_code: string | null;
  /** An outcome the gateway reported after the refund was already final, kept for operators. */
  late_outcome: { status: string; at: Date; gateway_transaction_id?: string } | null;
  /**
   * True while it reads `canceled` at its SLA but the gateway has not confirmed the cancel (its amount still
   * reserved; it may yet turn `success`); false once settled. Absent from records of older code.
   */
  cancel_unconfirmed?: boolean;
  created_at: Date;
  updated_at: Date;
  version: number;
  // ---- the older interface (api/older-refunds), for refunds of both interfaces. Written when the record is
  // inserted (activities/store.ts createRefundRecord); refunds from before it get theirs at the API's start
  // (data/refunds.ts ensureRefundOlderIds).
  /** The integer id, from the `refunds` sequence. */
  id?: number;
  uuid?: string;
  /**
   * Written by the refund workflow (domain/older-refund-views.ts documents the mapping). Its succeeded_at is
   * no field: a successful refund's record was last written by its success, so it is updated_at.
   */
  sub_status?: string;
  /** The gateway of the connector that took the refunded payment. */
  gateway?: string | null;
  /** The refunded intent's older ids: its payment's transaction_id, its UUID and its integer secret. */
  transaction_id?: number | null;
  payment_intent_uuid?: string | null;
  payment_intent_secret?: number | null;
}

export interface EventRecord {
  _id: string; // evt_...
  tenant_id: string;
  type: string;
  created_at: Date;
  /** The object as its retrieve endpoint returns it at the time of the event (plus intent metadata). */
  data: Record<string, unknown>;
  object_id: string;
  /** The exact body delivered, so a redelivery sends the same bytes long after workflow history is gone. */
  body: string;
  format: 'envelope' | 'legacy';
  source: { kind: 'payment_intent' | 'refund' | 'payout' | 'return' | 'subscription' | 'invoice' | 'webhook_endpoint'; id: string };
  /** Endpoints this event is delivered to, frozen at emission; secrets stay in webhook_secrets. */
  endpoints: { url: string; has_secret: boolean; index: number; secret_ref?: string }[];
}

export interface DeliveryAttemptRecord {
  _id: string; // `${delivery_id}:${attempt}` so a retried write is idempotent
  tenant_id: string;
  event_id: string;
  delivery_id: string; // the delivery workflow id
  endpoint_url: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  outcome: 'delivered' | 'failed' | 'gone';
  /**
   * Nothing was sent because the tenant's endpoints together had their most attempts in flight (put off until the
   * delivery's budget ran out): a failure of the delivery, not of this endpoint, so its health does not count it.
   */
  not_the_endpoints?: true;
}

/** A card saved by a customer-present payment (`pm_...`): what a merchant-initiated charge uses. */
export interface SavedPaymentMethodRecord {
  _id: string; // pm_...
  tenant_id: string;
  customer: string | null;
  payment_intent: string;
  /** The connector whose gateway issued the token: only it can charge the card. */
  connector: string;
  gateway: string;
  /**
   * The gateway's reusable token for the card; null when the gateway issued none (NO_GATEWAY_TOKENS). Cards
   * saved before reusable tokens held the charge id here.
   */
  gateway_token: string | null;
  brand?: string | null;
  last4?: string | null;
  exp_month?: number | null;
  exp_year?: number | null;
  created_at: Date;
  /** Detached by the merchant: listed no more, never charged again. */
  detached_at?: Date | null;
}

export type AgreementType = 'RECURRING' | 'INSTALLMENT' | 'UNSCHEDULED';

/**
 * An agreement (`agr_...`) between the merchant and the cardholder for merchant-initiated charges of one card,
 * keyed by the merchant's `agreement_id`. Later charges send the network transaction id of its first one.
 */
export interface AgreementRecord {
  _id: string; // agr_...
  tenant_id: string;
  /** `<tenant>:<payment_method>:<agreement_id>`: unique, so two concurrent first charges make one agreement. */
  scope: string;
  payment_method: string;
  agreement_id: string;
  agreement_type: AgreementType;
  /** The network's reference of the first successful charge under the agreement (set once; null while only claimed). */
  network_transaction_id: string | null;
  /** The first charge's transaction (`ti_...`); while only claimed, the claiming charge's once it is known. */
  first_transaction: string | null;
  created_at: Date;
  /**
   * While the first charge is under way (no network_transaction_id yet): the POST /cards/mit request that holds
   * it, so concurrent charges under the agreement wait for its id instead of going out without one.
   */
  claim?: { token: string; payment_intent: string; at: Date };
}

/** A charge attempt of a payment intent that the merchant sees (`ti_...`): today the merchant-initiated ones. */
export interface TransactionRecord {
  transaction: string; // ti_...
  kind: 'merchant_initiated';
  status: 'processing' | 'requires_action' | 'succeeded' | 'failed';
  payment_method: string;
  agreement: string; // agr_...
  /** The merchant's agreement_id. */
  agreement_id: string;
  agreement_type: AgreementType;
  connector: string;
  failure_code: string | null;
  next_action: { type: 'redirect_to_url'; url: string } | null;
  created_at: string; // ISO
  updated_at: string; // ISO
  /** The caller's name for this charge (MitChargeInput.chargeKey): repeated, it is answered with this transaction. */
  charge_key?: string;
}

/** Webhook secrets of one request (an intent's or a refund's `webhooks`), by endpoint index. */
export interface WebhookSecretsRecord {
  _id: string; // whs_...
  tenant_id: string;
  secrets: (string | null)[];
  created_at: Date;
}

// Payouts and recipients: `tenant_id` scopes them like everything else; the integer the older interface shows
// as `tenant_id` is `tenant_number`.
export interface PayoutRecipientRecord {
  _id: string; // the public uuid
  /** The older interface's integer id, from the `payout_recipients` sequence. */
  id: number;
  tenant_id: string;
  tenant_number: number;
  gateway: string;
  recipient_type: RecipientType;
  /** null while the gateway registration is in flight (a crash there is finished by the next request). */
  gateway_recipient_id: string | null;
  bank_account_number: string | null;
  bank_account_name: string | null;
  bank_code: string | null;
  bank_name: string | null;
  mobile_money_number: string | null;
  mobile_money_provider: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  metadata: Record<string, string>;
  idempotency_key: string | null;
  /** `<tenant>:<key>`, or the uuid; inline recipients of a payout use `<tenant>:payout:<payout key>`. */
  idempotency_scope: string;
  created_at: Date;
  updated_at: Date;
}

export interface PayoutRecord {
  _id: string; // the payout uuid, also its workflow id
  id: number;
  tenant_id: string;
  tenant_number: number;
  region: string;
  recipient_uuid: string;
  gateway: string;
  connector_id: string;
  amount: number;
  currency: string;
  narration: string | null;
  metadata: Record<string, string>;
  status: PayoutBaseStatus;
  sub_status: PayoutSubStatus;
  failure_reason: string | null;
  gateway_payout_id: string | null;
  webhook_urls: string[];
  /** Where the webhook secret is kept (webhook_secrets), never the secret itself. */
  webhook_secret_ref: string | null;
  timeout_seconds: number;
  expires_at: Date;
  /** The gateway's word that came after the payout was already final (e.g. executed after its timeout). */
  late_outcome: { status: string; at: Date } | null;
  /** An operator marked the payout done on evidence (never shown to merchants; the audit trail has it too). */
  operator_confirmation?: { operator: string; reason: string; evidence: string; at: string };
  idempotency_key: string | null;
  idempotency_scope: string;
  created_at: Date;
  updated_at: Date;
  /** 0 from the API's insert; then each write of the payout's workflow is higher. */
  version: number;
}

/** The fields a payout workflow's write sets (data/payouts.ts applies them over an older version only). */
export interface PayoutPatch {
  id: string;
  version: number;
  sub_status: PayoutSubStatus;
  gateway_payout_id: string | null;
  failure_reason: string | null;
  late_outcome: { status: string; at: string } | null;
  updated_at: string;
  /** Set when an operator marked the payout done on evidence (workflows/payout: confirmPayoutUpdate). */
  operator_confirmation?: { operator: string; reason: string; evidence: string; at: string } | null;
}

// ---- commerce (api/catalog, api/carts, api/checkouts, api/returns). Stored snake_case like every record;
// the commerce endpoints answer camelCase as the spec does.

/** Text in the shop's languages. */
export interface LocalizedTitle {
  key?: string;
  en: string;
  ar: string;
}

export interface CategoryAttributeRecord {
  id: string; // attr_...
  title: LocalizedTitle;
  values: { id: string; title: LocalizedTitle }[]; // val_...
}

export interface CategoryRecord {
  _id: string; // cat_...
  tenant_id: string;
  title: LocalizedTitle;
  parent_id: string | null;
  /** Its ancestors, root first: a product of this category is found under each of them. */
  ancestor_ids: string[];
  attributes: CategoryAttributeRecord[];
  created_at: Date;
}

export interface ProductRecord {
  _id: string; // prod_...
  tenant_id: string;
  sku: string;
  /** `<tenant>:<sku>`: unique. */
  sku_scope: string;
  title: { en: string; ar: string };
  /** Normalised words of each title (domain/text-search.ts): the word search runs on these. */
  title_tokens: { en: string[]; ar: string[] };
  price: number; // minor units
  currency: string;
  /** Units for sale now: written only by the product's stock owner (its workflow) once it has one. */
  stock: number;
  /** The stock owner's write counter: a late write of an older level never wins. */
  stock_version?: number;
  ratings_average: number;
  ratings_count: number;
  popularity: number;
  category_ids: string[];
  /** Its categories and all their ancestors: `categoryId` of a parent finds it. */
  category_path_ids: string[];
  attributes: Record<string, string[]>;
  /** `<attributeId>:<valueId>` of every attribute value: what `filter.attr.<id>` queries. */
  attribute_values: string[];
  image_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CatalogRecord {
  _id: string; // ctl_...
  tenant_id: string;
  title: { en: string; ar: string };
  tags: string[];
  product_ids: string[];
  created_at: Date;
}

/** A tenant's commerce settings; `_id` is the tenant id. Defaults: no tax, no shipping, no webhooks. */
export interface CommerceSettingsRecord {
  _id: string;
  tax_rate_basis_points: number;
  shipping_flat: number;
  free_shipping_from: number | null;
  /** Return status webhooks: each gets the same body, with Service-Webhook-Secret when a secret is set. */
  webhook_urls: { url: string; secretRef?: string }[];
  updated_at: Date;
}

export interface CartLineRecord {
  product_id: string;
  quantity: number;
  /** The price when the line was set: a checkout compares it with the live price (cartChanges `prices`). */
  unit_price: number;
}

export interface CartRecord {
  _id: string; // cart_...
  tenant_id: string;
  user_id: string;
  currency: string;
  idempotency_key: string | null;
  /** `<tenant>:<idempotency_key>`, or the id: unique, so a repeated create returns the same cart. */
  idempotency_scope: string;
  products: CartLineRecord[];
  /** `converted`: a checkout of it was paid (it is kept); carts never converted are deleted at retention. */
  status: 'open' | 'converted';
  created_at: Date;
  updated_at: Date;
}

export interface AddressRecord {
  _id: string; // addr_...
  tenant_id: string;
  user_id: string;
  phone: string;
  additional_phone: string | null;
  address: string;
  additional_info: string | null;
  region: string;
  city: string;
  created_at: Date;
}

/** The address fields as the commerce endpoints answer them (an Address object of the spec). */
export type AddressSnapshot = Omit<AddressRecord, 'tenant_id' | 'user_id' | 'created_at'>;

export interface CommerceTotals {
  subtotal: number;
  tax: number;
  shipping: number | null;
  total: number;
}

export interface CheckoutLineRecord {
  product_id: string;
  quantity: number;
  /** The live price when the checkout was made: what the customer pays. */
  unit_price: number;
  title: { en: string; ar: string };
}

/** A checkout (`chk_...`): written by the API when made, then only by its workflow (versioned). */
export interface CheckoutRecord {
  _id: string; // chk_...
  tenant_id: string;
  cart_id: string;
  user_id: string;
  currency: string;
  lines: CheckoutLineRecord[];
  totals: CommerceTotals;
  tax_rate_basis_points: number;
  shipping_address: AddressSnapshot;
  payment_intent: string | null;
  /**
   * `reserving` while its stock is being held; `awaiting_payment` with its intent; `completed` once paid
   * (then `order_id`); `canceled` when the intent was canceled or expired; `changed` when the cart had
   * changes (nothing held); `abandoned` when no intent was attached in time.
   */
  status: 'reserving' | 'awaiting_payment' | 'completed' | 'canceled' | 'changed' | 'abandoned';
  /**
   * The cart's id while this checkout is open or paid, else its own id: unique, so a cart has one open
   * checkout (a repeated POST /checkouts answers it instead of holding the stock and charging twice).
   */
  open_scope: string;
  order_id: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

export interface OrderRecord {
  _id: string; // ord_...
  tenant_id: string;
  checkout_id: string;
  cart_id: string;
  user_id: string;
  payment_intent: string;
  currency: string;
  lines: CheckoutLineRecord[];
  totals: CommerceTotals;
  tax_rate_basis_points: number;
  shipping_address: AddressSnapshot;
  status: 'paid';
  created_at: Date;
}


export interface ReturnRecord {
  _id: string; // ret_...
  tenant_id: string;
  order_id: string;
  checkout_id: string;
  user_id: string;
  idempotency_key: string;
  /** `<tenant>:<idempotency_key>`: unique, so a repeated create answers the same return. */
  idempotency_scope: string;
  product_id: string;
  quantity: number;
  reason_code: string;
  address: AddressSnapshot;
  /** What is refunded when it is received: the lines' price and their share of tax (shipping is not refunded). */
  amount: number;
  currency: string;
  status: ReturnStatus;
  refund: string | null;
  /** Why its refund was refused when it was received (the refund admission's error); kept by api/returns, not its workflow. */
  refund_refusal?: { code: string; message: string };
  created_at: Date;
  updated_at: Date;
  version: number;
}

/**
 * A tenant's webhook signing secrets (Standard Webhooks, `whsec_` + base64 of 32 random bytes): every delivery
 * is signed with `secret`, and with each rotated-out secret in `previous` until its `expires_at` (24 h after
 * the rotation), so a receiver still holding the old one keeps verifying while it moves to the new one.
 * One per tenant, created on first use (a delivery or the admin GET); `_id` is the tenant id.
 */
export interface WebhookSigningSecretRecord {
  _id: string; // the tenant id
  tenant_id: string;
  secret: string; // whsec_...
  /** When `secret` became current (created, or rotated in). */
  created_at: Date;
  previous: { secret: string; expires_at: Date }[];
  /** Raised by each rotation; a rotation applies only to the version it read. */
  version: number;
  updated_at: Date;
  /** The idempotency key of the rotation that made `secret`, if it had one: that rotation sent again answers it. */
  rotation_key?: string | null;
}

/**
 * A merchant's webhook endpoint as deliveries know it: endpoints are given inline on each resource, so an
 * endpoint is a tenant's URL, made on its first delivery. `_id` is `whe_` + a hash of tenant and URL (one per
 * pair, the unique key). Its health (last success, failing since) is read from delivery_attempts, never
 * written here, so concurrent deliveries write nothing to one document but a disable.
 */
export interface WebhookEndpointRecord {
  _id: string; // whe_<hex>
  tenant_id: string;
  url: string;
  state: 'enabled' | 'disabled';
  created_at: Date;
  /** Health counts attempts from here on: its creation, or its last re-enable. */
  enabled_at: Date;
  enabled_by: { operator: string; reason: string } | null;
  disabled_at: Date | null;
  /** Raised by each disable: names the disable's `webhook_endpoint.disabled` event (one per disable). */
  disable_count: number;
  /** The event of the last disable. */
  disabled_event: string | null;
}

/** A delivery not sent because its endpoint was disabled, kept so a re-enable can replay it. `_id` is the delivery id. */
export interface ParkedDeliveryRecord {
  _id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  endpoint_index: number;
  url: string;
  parked_at: Date;
  /** The delivery that replayed it, once replayed. */
  replayed_by: string | null;
}

/** One of an endpoint's in-flight send slots (`<endpoint id>:<n>`): held by one attempt, freed after it or at `expires_at`. */
export interface WebhookSendSlotRecord {
  _id: string;
  endpoint_id: string;
  holder: string;
  expires_at: Date;
}
