import { MongoClient, type Collection, type Db } from 'mongodb';
import type {
  AddressRecord,
  CheckoutRecord,
  OrderRecord,
  ReturnRecord,
  AgreementRecord,
  CartRecord,
  CatalogRecord,
  CategoryRecord,
  CommerceSettingsRecord,
  ProductRecord,
  ApiKeyRecord,
  CheckoutIntentClaimRecord,
  CheckoutIntentRecord,
  ConnectorRecord,
  CustomerRecord,
  DeliveryAttemptRecord,
  ParkedDeliveryRecord,
  WebhookEndpointRecord,
  WebhookSendSlotRecord,
  EventRecord,
  OrchestratorRecord,
  PaymentFormRecord,
  PaymentIntentRecord,
  PayoutRecipientRecord,
  PayoutRecord,
  RefundRecord,
  ReplayedRequestRecord,
  SavedPaymentMethodRecord,
  SequenceBlockRecord,
  WebhookSecretsRecord,
  WebhookSigningSecretRecord,
  TenantRecord,
} from './records';
import type {
  CheckoutSessionRecord,
  CouponRecord,
  CouponReleaseRecord,
  CreditNoteRecord,
  CustomerBalanceRecord,
  InvoiceRecord,
  PlanRecord,
  PortalSessionRecord,
  PromotionCodeRecord,
  SubscriptionRecord,
  TaxRateRecord,
  TestClockRecord,
} from './billing-records';
import type { DiscrepancyRecord, OperatorActionRecord, ReconciliationRecheckRecord, StrandedTakenBackRecord } from './ops-records';

export interface Collections {
  tenants: Collection<TenantRecord>;
  apiKeys: Collection<ApiKeyRecord>;
  connectors: Collection<ConnectorRecord>;
  paymentForms: Collection<PaymentFormRecord>;
  orchestrators: Collection<OrchestratorRecord>;
  customers: Collection<CustomerRecord>;
  paymentIntents: Collection<PaymentIntentRecord>;
  refunds: Collection<RefundRecord>;
  events: Collection<EventRecord>;
  deliveryAttempts: Collection<DeliveryAttemptRecord>;
  webhookEndpoints: Collection<WebhookEndpointRecord>;
  parkedDeliveries: Collection<ParkedDeliveryRecord>;
  webhookSendSlots: Collection<WebhookSendSlotRecord>;
  savedPaymentMethods: Collection<SavedPaymentMethodRecord>;
  /** A saving charge's reusable token between its answer and the card's save (data/charge-tokens.ts). */
  chargeTokens: Collection<{ _id: string; token: string | null; created_at?: Date; dropped_at?: Date }>;
  webhookSecrets: Collection<WebhookSecretsRecord>;
  /** One per tenant, `_id` = tenant id (no other index needed). */
  webhookSigningSecrets: Collection<WebhookSigningSecretRecord>;
  /** One document per (tenant, version) a rotation moves to: its unique `_id` lets one rotation win. */
  /** A rotation's claim on the version it read, with its idempotency key. */
  webhookSigningRotations: Collection<{ _id: string; tenant_id: string; created_at: Date; idempotency_key?: string | null }>;
  replayedRequests: Collection<ReplayedRequestRecord>;
  payouts: Collection<PayoutRecord>;
  payoutRecipients: Collection<PayoutRecipientRecord>;
  sequenceBlocks: Collection<SequenceBlockRecord>;
  checkoutIntents: Collection<CheckoutIntentRecord>;
  checkoutIntentClaims: Collection<CheckoutIntentClaimRecord>;
  agreements: Collection<AgreementRecord>;
  categories: Collection<CategoryRecord>;
  products: Collection<ProductRecord>;
  catalogs: Collection<CatalogRecord>;
  commerceSettings: Collection<CommerceSettingsRecord>;
  carts: Collection<CartRecord>;
  addresses: Collection<AddressRecord>;
  checkouts: Collection<CheckoutRecord>;
  orders: Collection<OrderRecord>;
  returns: Collection<ReturnRecord>;
  // recurring billing (platform/billing-records.ts)
  plans: Collection<PlanRecord>;
  taxRates: Collection<TaxRateRecord>;
  coupons: Collection<CouponRecord>;
  promotionCodes: Collection<PromotionCodeRecord>;
  couponReleases: Collection<CouponReleaseRecord>;
  subscriptions: Collection<SubscriptionRecord>;
  invoices: Collection<InvoiceRecord>;
  creditNotes: Collection<CreditNoteRecord>;
  customerBalances: Collection<CustomerBalanceRecord>;
  /** Each change a balance applied, by its key (`_id` = balance id and key): a run after an idle close knows it. */
  balanceChanges: Collection<{ _id: string; tenant_id: string; amount: number; at: Date }>;
  testClocks: Collection<TestClockRecord>;
  checkoutSessions: Collection<CheckoutSessionRecord>;
  portalSessions: Collection<PortalSessionRecord>;
  // operations (platform/ops-records.ts)
  operatorActions: Collection<OperatorActionRecord>;
  discrepancies: Collection<DiscrepancyRecord>;
  reconciliationRechecks: Collection<ReconciliationRecheckRecord>;
  strandedTakenBack: Collection<StrandedTakenBackRecord>;
  /** One per uncollectible invoice's version acted on (pay or void): `_id` = invoice id and version. */
  invoiceActions: Collection<{ _id: string; tenant_id: string; taken_at: Date }>;
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  c: Collections;
  close(): Promise<void>;
}

export async function connectMongo(uri: string, opts: { serverSelectionTimeoutMS?: number; maxPoolSize?: number } = {}): Promise<Mongo> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
    // One pool per process, shared by every request and activity (MONGODB_MAX_POOL_SIZE).
    maxPoolSize: opts.maxPoolSize ?? 50,
  });
  await client.connect();
  const db = client.db();
  const c: Collections = {
    tenants: db.collection('tenants'),
    apiKeys: db.collection('api_keys'),
    connectors: db.collection('connectors'),
    paymentForms: db.collection('payment_forms'),
    orchestrators: db.collection('orchestrators'),
    customers: db.collection('customers'),
    paymentIntents: db.collection('payment_intents'),
    refunds: db.collection('refunds'),
    events: db.collection('events'),
    deliveryAttempts: db.collection('delivery_attempts'),
    webhookEndpoints: db.collection('webhook_endpoints'),
    parkedDeliveries: db.collection('parked_deliveries'),
    webhookSendSlots: db.collection('webhook_send_slots'),
    savedPaymentMethods: db.collection('saved_payment_methods'),
    chargeTokens: db.collection('charge_tokens'),
    webhookSecrets: db.collection('webhook_secrets'),
    webhookSigningSecrets: db.collection('webhook_signing_secrets'),
    webhookSigningRotations: db.collection('webhook_signing_rotations'),
    replayedRequests: db.collection('replayed_requests'),
    payouts: db.collection('payouts'),
    payoutRecipients: db.collection('payout_recipients'),
    sequenceBlocks: db.collection('sequence_blocks'),
    checkoutIntents: db.collection('checkout_intents'),
    checkoutIntentClaims: db.collection('checkout_intent_claims'),
    agreements: db.collection('agreements'),
    categories: db.collection('categories'),
    products: db.collection('products'),
    catalogs: db.collection('catalogs'),
    commerceSettings: db.collection('commerce_settings'),
    carts: db.collection('carts'),
    addresses: db.collection('addresses'),
    checkouts: db.collection('checkouts'),
    orders: db.collection('orders'),
    returns: db.collection('returns'),
    plans: db.collection('plans'),
    taxRates: db.collection('tax_rates'),
    coupons: db.collection('coupons'),
    promotionCodes: db.collection('promotion_codes'),
    couponReleases: db.collection('coupon_releases'),
    subscriptions: db.collection('subscriptions'),
    invoices: db.collection('invoices'),
    creditNotes: db.collection('credit_notes'),
    customerBalances: db.collection('customer_balances'),
    balanceChanges: db.collection('balance_changes'),
    testClocks: db.collection('test_clocks'),
    checkoutSessions: db.collection('checkout_sessions'),
    portalSessions: db.collection('portal_sessions'),
    operatorActions: db.collection('operator_actions'),
    discrepancies: db.collection('discrepancies'),
    reconciliationRechecks: db.collection('reconciliation_rechecks'),
    strandedTakenBack: db.collection('stranded_taken_back'),
    invoiceActions: db.collection('invoice_actions'),
  };
  return { client, db, c, close: () => client.close() };
}

/** The order every list is read in (api/http/pagination.ts): newest first, then by id. */
export const LIST_SORT = { created_at: -1, _id: -1 } as const;

/**
 * The equality filters of each list the API serves (the query schemas in each api/<resource>/routes.ts), split into those
 * every query of the list carries and those a merchant may add, in any combination.
 */
export const LIST_FILTERS = {
  paymentIntents: { always: [], optional: ['status', 'customer', 'currency'] },
  refunds: { always: [], optional: ['payment_intent', 'status', 'currency'] },
  customers: { always: ['deleted_at'], optional: ['reference', 'email'] },
  events: { always: [], optional: ['type'] },
  plans: { always: [], optional: ['active', 'currency'] },
  taxRates: { always: [], optional: ['active', 'inclusive'] },
  coupons: { always: ['deleted_at'], optional: [] },
  promotionCodes: { always: [], optional: ['coupon', 'active', 'code_scope'] },
  subscriptions: { always: [], optional: ['customer', 'status'] },
  invoices: { always: [], optional: ['customer', 'subscription', 'status'] },
  creditNotes: { always: ['status'], optional: ['invoice', 'customer'] },
  testClocks: { always: [], optional: [] },
} as const satisfies Partial<Record<keyof Collections, { always: readonly string[]; optional: readonly string[] }>>;

export interface IndexDefinition {
  collection: keyof Collections;
  key: Record<string, 1 | -1>;
  unique?: boolean;
}

/**
 * One index per list and combination of its filters: tenant_id, the filters, then the sort keys. A page is
 * then a walk along one index in sort order that stops after `limit + 1` entries, however rare the filtered
 * value, instead of a scan of the tenant's records or a sort in memory. (Three optional filters make eight
 * indexes; past four a list should pick its combinations rather than take all of them.)
 */
export function listIndexes(): IndexDefinition[] {
  const defs: IndexDefinition[] = [];
  for (const [collection, { always, optional }] of Object.entries(LIST_FILTERS) as Array<[keyof Collections, { always: readonly string[]; optional: readonly string[] }]>) {
    for (let mask = 0; mask < 1 << optional.length; mask++) {
      const chosen = optional.filter((_, i) => mask & (1 << i));
      const key: Record<string, 1 | -1> = { tenant_id: 1 };
      for (const field of [...always, ...chosen]) key[field] = 1;
      Object.assign(key, LIST_SORT);
      defs.push({ collection, key });
    }
  }
  return defs;
}

/**
 * Every index we ask for. Unique indexes are the only concurrency guard we ask of MongoDB: they hold on
 * FerretDB too, where concurrent updates of one document are not atomic. FerretDB has no partial indexes and
 * treats missing compound-index fields unlike MongoDB, so each unique key is one always-present string field.
 */
export const INDEXES: readonly IndexDefinition[] = [
  { collection: 'apiKeys', key: { tenant_id: 1 } },
  { collection: 'connectors', key: { tenant_id: 1 } },
  { collection: 'paymentForms', key: { tenant_id: 1 } },
  { collection: 'orchestrators', key: { tenant_id: 1 } },
  { collection: 'customers', key: { reference_scope: 1 }, unique: true },
  { collection: 'paymentIntents', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'refunds', key: { payment_intent: 1 } },
  { collection: 'refunds', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'deliveryAttempts', key: { event_id: 1, attempted_at: 1 } },
  // Webhook endpoint health (last success, first failure after it) and a tenant's endpoints; parked deliveries by endpoint.
  { collection: 'deliveryAttempts', key: { tenant_id: 1, endpoint_url: 1, attempted_at: 1 } },
  { collection: 'webhookEndpoints', key: { tenant_id: 1, url: 1 } },
  { collection: 'parkedDeliveries', key: { endpoint_id: 1, parked_at: 1 } },
  // Answers kept under the Idempotency-Key header are purged by tenant once past their keeping (api/http/header-replay.ts).
  { collection: 'replayedRequests', key: { tenant_id: 1, started_at: 1 } },
  // An event's retrieve says which of its deliveries wait parked.
  { collection: 'parkedDeliveries', key: { event_id: 1 } },
  // A customer's saved cards, newest first (GET /v202608/customers/{customer}/payment-methods).
  { collection: 'savedPaymentMethods', key: { tenant_id: 1, customer: 1, detached_at: 1, created_at: -1, _id: -1 } },
  // One agreement per tenant, card and merchant agreement_id.
  { collection: 'agreements', key: { scope: 1 }, unique: true },
  // A merchant-initiated charge (`ti_...`) is found through its intent.
  { collection: 'paymentIntents', key: { 'transactions.transaction': 1 } },
  // Intents a create left at version 0 (the stranded-records sweep); every later write moves them off it.
  { collection: 'paymentIntents', key: { version: 1, created_at: 1, _id: 1 } },
  // Commerce: products by sku, by category (and its ancestors), by title word, by attribute value and in each
  // sort order; catalogs by tag; carts by their idempotency scope; a user's addresses.
  { collection: 'products', key: { sku_scope: 1 }, unique: true },
  { collection: 'products', key: { tenant_id: 1, category_path_ids: 1 } },
  { collection: 'products', key: { tenant_id: 1, 'title_tokens.en': 1 } },
  { collection: 'products', key: { tenant_id: 1, 'title_tokens.ar': 1 } },
  { collection: 'products', key: { tenant_id: 1, attribute_values: 1 } },
  { collection: 'products', key: { tenant_id: 1, popularity: -1, _id: 1 } },
  { collection: 'products', key: { tenant_id: 1, price: 1, _id: 1 } },
  { collection: 'products', key: { tenant_id: 1, ratings_average: -1, _id: 1 } },
  { collection: 'categories', key: { tenant_id: 1, parent_id: 1 } },
  { collection: 'catalogs', key: { tenant_id: 1, tags: 1 } },
  { collection: 'carts', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'addresses', key: { tenant_id: 1, user_id: 1 } },
  { collection: 'orders', key: { checkout_id: 1 }, unique: true },
  { collection: 'checkouts', key: { open_scope: 1 }, unique: true },
  { collection: 'returns', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'returns', key: { tenant_id: 1, order_id: 1 } },
  { collection: 'returns', key: { tenant_id: 1, created_at: -1, _id: -1 } },
  // Payouts and recipients: the create guards, the integer ids (unique: the sequences' safety net), and the
  // page-numbered lists' default order and sort columns (any filter runs on the tenant's rows in that order).
  { collection: 'payouts', key: { idempotency_scope: 1 }, unique: true },
  // Payouts a create left at version 0 (the stranded-records sweep).
  { collection: 'payouts', key: { version: 1, created_at: 1, _id: 1 } },
  { collection: 'payouts', key: { id: 1 }, unique: true },
  { collection: 'payouts', key: { tenant_id: 1, created_at: -1, _id: -1 } },
  { collection: 'payouts', key: { tenant_id: 1, amount: -1, _id: -1 } },
  { collection: 'payoutRecipients', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'payoutRecipients', key: { id: 1 }, unique: true },
  { collection: 'payoutRecipients', key: { tenant_id: 1, created_at: -1, _id: -1 } },
  // The older interface names an intent by its UUID or integer secret and a payment by its transaction_id
  // (not unique: intents from before it have none until the API's start gives them theirs; the sequences
  // and UUIDs make them unique). Its page-numbered list sorts by these columns within a tenant.
  { collection: 'paymentIntents', key: { tenant_id: 1, uuid: 1 } },
  { collection: 'paymentIntents', key: { tenant_id: 1, payment_intent_secret: -1 } },
  { collection: 'paymentIntents', key: { tenant_id: 1, transaction_id: 1 } },
  { collection: 'paymentIntents', key: { checkout_intent: 1 } },
  { collection: 'checkoutIntents', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'refunds', key: { tenant_id: 1, id: -1 } }, // the older refund list: its default order and single-refund filter
  { collection: 'refunds', key: { tenant_id: 1, amount: -1, _id: -1 } }, // and its other sort column
  // The highest block of a sequence, for MongoDB; FerretDB 1.24 (SQLite) scans regardless (data/sequences.ts).
  { collection: 'sequenceBlocks', key: { name: 1, block: -1 } },
  // Not unique: tenants from before integer ids have no number until ensureTenantNumbers runs.
  { collection: 'tenants', key: { number: 1 } },
  // Billing: the create guards, a promotion code by its case-folded code, the subscriptions on a test clock.
  { collection: 'plans', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'taxRates', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'coupons', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'promotionCodes', key: { code_scope: 1 }, unique: true },
  { collection: 'subscriptions', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'subscriptions', key: { test_clock: 1 } },
  { collection: 'creditNotes', key: { idempotency_scope: 1 }, unique: true },
  { collection: 'creditNotes', key: { payment_intent: 1 } },
  { collection: 'checkoutSessions', key: { idempotency_scope: 1 }, unique: true },
  // Operations: the audit trail of one target (a payment intent, a refund, a payout, a delivery), newest first.
  { collection: 'operatorActions', key: { target: 1, requested_at: -1 } },
  // Reconciliation: one discrepancy per key (a re-run adds nothing), the operators' list (newest first, by
  // status/kind/tenant), and the windows it reads: captures by when they succeeded, refunds and payouts by creation.
  { collection: 'discrepancies', key: { discrepancy_key: 1 }, unique: true },
  { collection: 'discrepancies', key: { status: 1, created_at: -1, _id: -1 } },
  { collection: 'discrepancies', key: { tenant_id: 1, status: 1, created_at: -1, _id: -1 } },
  // Rows a later run reads again (one side was pending at their window's run), by object type and window.
  { collection: 'reconciliationRechecks', key: { gateway: 1, object_type: 1, window_from: 1, _id: 1 } },
  { collection: 'paymentIntents', key: { succeeded_at: 1, _id: 1 } },
  { collection: 'refunds', key: { created_at: 1, _id: 1 } },
  { collection: 'payouts', key: { created_at: 1, _id: 1 } },
  // Records the stranded-records sweep holds between its delete and its second look, by kind and age.
  { collection: 'strandedTakenBack', key: { kind: 1, taken_at: 1 } },
  ...listIndexes(),
];

export async function ensureIndexes({ c }: Mongo): Promise<void> {
  // One createIndex per index. (FerretDB 1.24 panics now and then when two processes, the API and the
  // worker at start, each send createIndexes with several indexes for one collection at the same time.)
  await Promise.all(INDEXES.map((d) => (c[d.collection] as unknown as Collection).createIndex(d.key, d.unique ? { unique: true } : {})));
}

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
