import { MongoClient, type Collection, type Db } from 'mongodb';
import type {
  ApiKeyRecord,
  ConnectorRecord,
  CustomerRecord,
  DeliveryAttemptRecord,
  EventRecord,
  OrchestratorRecord,
  PaymentFormRecord,
  PaymentIntentRecord,
  RefundRecord,
  SavedPaymentMethodRecord,
  WebhookSecretsRecord,
  TenantRecord,
} from './records';

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
  savedPaymentMethods: Collection<SavedPaymentMethodRecord>;
  webhookSecrets: Collection<WebhookSecretsRecord>;
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  c: Collections;
  close(): Promise<void>;
}

export async function connectMongo(uri: string, opts: { serverSelectionTimeoutMS?: number } = {}): Promise<Mongo> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
    // One pool per process, shared by every request and activity.
    maxPoolSize: 50,
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
    savedPaymentMethods: db.collection('saved_payment_methods'),
    webhookSecrets: db.collection('webhook_secrets'),
  };
  return { client, db, c, close: () => client.close() };
}

/**
 * Indexes. Unique indexes are the only concurrency guard we ask of MongoDB: they hold on FerretDB too,
 * where concurrent updates of one document are not atomic. FerretDB has no partial indexes and treats
 * missing compound-index fields unlike MongoDB, so each unique key is one always-present string field.
 */
export async function ensureIndexes({ c }: Mongo): Promise<void> {
  await Promise.all([
    c.apiKeys.createIndex({ tenant_id: 1 }),
    c.connectors.createIndex({ tenant_id: 1 }),
    c.paymentForms.createIndex({ tenant_id: 1 }),
    c.orchestrators.createIndex({ tenant_id: 1 }),
    c.customers.createIndex({ tenant_id: 1, created_at: -1, _id: -1 }),
    c.customers.createIndex({ reference_scope: 1 }, { unique: true }),
    c.paymentIntents.createIndex({ tenant_id: 1, created_at: -1, _id: -1 }),
    c.paymentIntents.createIndex({ idempotency_scope: 1 }, { unique: true }),
    c.refunds.createIndex({ tenant_id: 1, created_at: -1, _id: -1 }),
    c.refunds.createIndex({ payment_intent: 1 }),
    c.refunds.createIndex({ idempotency_scope: 1 }, { unique: true }),
    c.events.createIndex({ tenant_id: 1, created_at: -1, _id: -1 }),
    c.deliveryAttempts.createIndex({ event_id: 1, attempted_at: 1 }),
    c.savedPaymentMethods.createIndex({ tenant_id: 1, customer: 1 }),
  ]);
}

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
