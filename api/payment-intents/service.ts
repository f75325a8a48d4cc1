import { notPendingMessage } from '../../domain/payment-intent';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import type { ConnectorRecord, PaymentIntentRecord, PinKind } from '../../platform/records';
import { attemptUpdate, cancelUpdate, PAYMENT_INTENT_WORKFLOW, type AttemptInput, type PaymentIntentInput } from '../../workflows/payment-intent/messages';
import { SA } from '../../workflows/search-attributes';
import { formatMoney } from '../../domain/money';
import { START_DEADLINE_MS, workflowExistence } from '../../platform/temporal';
import type { AppDeps, AuthContext } from '../deps';
import { contactSnapshot, findCustomer, predictCustomerId, upsertCustomer } from '../customers/service';
import type { CustomerInput } from '../customers/schemas';
import { intentPageUrl } from '../hosted/client-secret';
import { attemptRouting, intentCheckout, resolveCheckoutRouting, type AttemptRouting } from '../payment-methods/resolve';
import { discardWebhookSecrets, endpointRefs, planWebhookEndpoints, storeWebhookSecrets, type PlannedWebhooks } from '../events/endpoints';
import { runUpdate } from '../http/workflow-calls';
import type { CreateBody } from './schemas';
import { newOlderIds, paymentIntentData } from '../../data/payment-intents';
import { idempotencyScope, insertOrHolder } from '../../data/idempotency';
import type { PaymentIntentView } from '../../domain/views';
import { olderIntentView } from '../older-payment-intents/views';
import { gatewayTaskQueue } from '../../workflows/task-queues';
import { secretsRecordOf, webhookSecretData } from '../../data/webhook-secrets';
import { customerData } from '../../data/customers';

/** A stored intent in its one public shape (domain/views.ts). */
export function intentView(r: PaymentIntentRecord, deps: AppDeps): PaymentIntentView {
  return {
    payment_intent: r._id,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    url: intentPageUrl(r._id, deps.config),
    expires_at: r.expires_at.toISOString(),
    ...(r.customer ? { customer: r.customer } : {}),
    created_at: r.created_at.toISOString(),
  };
}

export function workflowInput(r: PaymentIntentRecord, deps: AppDeps): PaymentIntentInput {
  return {
    id: r._id,
    tenantId: r.tenant_id,
    region: r.region,
    amount: r.amount,
    currency: r.currency,
    customer: r.customer,
    metadata: r.metadata,
    webhooks: r.webhooks,
    // The checkout at create. Each attempt brings the one decided when it is made (submitAttempt); these
    // serve attempts sent by an API from before that.
    connectors: r.connectors,
    ...(r.failover ? { failover: true } : {}),
    ...(r.owner ? { owner: r.owner } : {}),
    returnUrl: r.return_url,
    createdAt: r.created_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    hostedPageUrl: intentPageUrl(r._id, deps.config),
    webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
    maxAttempts: deps.config.MAX_ATTEMPTS_PER_INTENT,
    apiVersion: r.api_version,
    ...(r.setup_future_usage ? { setupFutureUsage: r.setup_future_usage } : {}),
    ...(r.legacy_webhooks?.length || r.checkout_intent
      ? {
          older: {
            view: olderIntentView(r, deps),
            transactionId: r.transaction_id!,
            payloadJson: r.payload_json ?? null,
            ...(r.api_version === 'v202606' ? { metadata: r.metadata } : {}),
            webhooks: endpointRefs(r.legacy_webhooks ?? []),
            checkoutIntent: r.checkout_intent ?? null,
          },
        }
      : {}),
  };
}

async function startWorkflow(r: PaymentIntentRecord, deps: AppDeps): Promise<void> {
  // A merchant's HTTP client will not wait out the Temporal client's own retries when the server is down.
  await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    deps.temporal.workflow.start(PAYMENT_INTENT_WORKFLOW, startOptions(r, deps)),
  );
}

/** The start options of an intent's workflow: the API's start, and the benchmark's raw start, use the same. */
export function startOptions(r: PaymentIntentRecord, deps: AppDeps) {
  return {
    workflowId: r._id,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [workflowInput(r, deps)] as [PaymentIntentInput],
    // A second start for the same id (a concurrent create with the same idempotency key, or a retry after
    // a crash between insert and start) attaches to the running workflow instead of failing.
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    typedSearchAttributes: [
      { key: SA.TenantId, value: r.tenant_id },
      { key: SA.PaymentStatus, value: r.status },
      { key: SA.AmountMinor, value: r.amount },
      { key: SA.Currency, value: r.currency },
      { key: SA.ExpiresAt, value: r.expires_at },
      ...(r.customer ? [{ key: SA.CustomerId, value: r.customer }] : []),
      ...(r.connectors.length === 1 ? [{ key: SA.Connector, value: r.connectors[0]! }] : []),
    ],
    staticSummary: `Payment ${formatMoney(r.amount, r.currency)} for ${r.tenant_id}`,
  };
}

function pinOf(body: CreateBody): { kind: PinKind; id: string } | null {
  const pins = (['payment_form', 'orchestrator', 'connector'] as const).filter((k) => body[k] !== undefined);
  if (pins.length > 1) throw invalidRequest('pin_conflict', `Give at most one of payment_form, orchestrator, connector (got ${pins.join(', ')})`, pins[1]);
  return pins.length ? { kind: pins[0]!, id: body[pins[0]!]! } : null;
}

/**
 * Create costs one MongoDB write and one workflow start. The insert is the idempotency guard (unique
 * `idempotency_scope`); after it, only the intent's workflow writes the record.
 *
 * A refused create writes nothing: everything that can refuse it (pin, customer id, webhook URLs) is
 * decided by reads first; the side writes (inline customer, webhook secrets) come after the guard is won,
 * so a concurrent duplicate never makes them, and are taken back when the workflow cannot be started.
 */
export async function createPaymentIntent(deps: AppDeps, auth: AuthContext, body: CreateBody, apiVersion: string) {
  const { mongo } = deps;
  const existing = await replayByKey(deps, auth, body.idempotency_key);
  if (existing) return replayed(sameMoneyByKey(existing, body), deps);
  const pin = pinOf(body);
  if (body.setup_future_usage && body.customer === undefined)
    throw invalidRequest('parameter_missing', 'setup_future_usage needs a customer: a card is saved to a customer', 'customer');
  const { connectors, failover } = await resolveCheckoutRouting(mongo, auth.tenantId, pin);
  const customer = await customerOf(deps, auth, body.customer);
  const webhooks = planWebhookEndpoints(auth.tenantId, auth.region, body.webhooks, deps.config);
  const record = await newIntentRecord(deps, auth, {
    amount: body.amount,
    currency: body.currency,
    customer: customer?.id ?? null,
    metadata: body.metadata ?? {},
    webhooks: webhooks.endpoints,
    return_url: body.return_url ?? null,
    pin,
    connectors,
    ...(failover ? { failover } : {}),
    timeout_seconds: body.timeout,
    idempotency_key: body.idempotency_key ?? null,
    api_version: apiVersion,
    setup_future_usage: body.setup_future_usage ?? null,
  }, customer?.input);
  const made = await insertAndStart(deps, auth, record, { webhooks: [webhooks], customer });
  return made.created ? { status: 201, body: createView(made.record, deps, true) } : replayed(sameMoneyByKey(made.record, body), deps);
}

/**
 * A known idempotency key answers its intent when the repeat asks for the same money, as refunds, payouts and
 * the older create do (and Stripe): a key reused by mistake for another amount or currency must not read as
 * that payment made. Anything else in the repeat (customer, metadata, webhooks) is left as the first made it.
 */
export function sameMoneyByKey(existing: PaymentIntentRecord, body: { amount: number; currency: string }): PaymentIntentRecord {
  if (existing.amount !== body.amount || existing.currency !== body.currency.toUpperCase())
    throw invalidRequest(
      'idempotency_key_in_use',
      `This idempotency_key made an intent of ${existing.amount} ${existing.currency}: use a new key for another amount or currency`,
      'idempotency_key',
    );
  return existing;
}

const replayed = (r: PaymentIntentRecord, deps: AppDeps) => ({ status: 200, body: createView(r, deps, false) });

/**
 * The fast path of a create repeated with a known idempotency key (every create interface has it): the
 * intent it made, its workflow started if it never was; no customer upsert, no second insert.
 */
export async function replayByKey(deps: AppDeps, auth: AuthContext, key: string | undefined): Promise<PaymentIntentRecord | null> {
  if (!key) return null;
  const existing = await paymentIntentData(deps.mongo).byIdempotencyKey(auth.tenantId, key);
  return existing ? replay(existing, deps) : null;
}

/** What a create decides; newIntentRecord adds the ids, the clock and the bookkeeping fields. */
export type IntentDraft = Pick<
  PaymentIntentRecord,
  'amount' | 'currency' | 'customer' | 'metadata' | 'webhooks' | 'return_url' | 'pin' | 'connectors' | 'timeout_seconds' | 'idempotency_key' | 'api_version'
> &
  Partial<PaymentIntentRecord>;

/**
 * A new intent's record, with its three ids (`pi_...`, and the older interface's UUID and integer secret) and
 * its customer's contact as it is now (`inline`: what an inline customer gives, about to be upserted), which
 * the older interface shows whichever version made the intent.
 */
export async function newIntentRecord(deps: AppDeps, auth: AuthContext, draft: IntentDraft, inline?: CustomerInput): Promise<PaymentIntentRecord> {
  const id = newId('pi', auth.region);
  const now = new Date();
  const stored = draft.customer ? await findCustomer(deps.mongo, auth.tenantId, draft.customer) : null;
  return {
    ...draft,
    contact: draft.customer ? contactSnapshot(stored, inline) : { phone_number: null, email: null },
    _id: id,
    ...(await newOlderIds(deps.mongo)),
    tenant_id: auth.tenantId,
    region: auth.region,
    status: 'pending',
    idempotency_scope: idempotencyScope(auth.tenantId, draft.idempotency_key, id),
    expires_at: new Date(now.getTime() + draft.timeout_seconds * 1000),
    created_at: now,
    updated_at: now,
    version: 0,
  };
}

/** The writes a create makes once its guard is won, taken back when the intent cannot be started. */
export interface IntentSideWrites {
  webhooks: PlannedWebhooks[];
  customer: { id: string; input?: CustomerInput } | null;
}

/**
 * Inserts the record (the idempotency guard), makes the side writes, starts the workflow. A concurrent
 * duplicate gets the winner's record (`created` false), whose workflow it starts again (harmless).
 * `customerCreated`: this create made the intent's customer (an inline customer no one had yet).
 */
export async function insertAndStart(
  deps: AppDeps,
  auth: AuthContext,
  record: PaymentIntentRecord,
  sides: IntentSideWrites,
): Promise<{ created: boolean; record: PaymentIntentRecord; customerCreated: boolean }> {
  const { mongo } = deps;
  const intents = paymentIntentData(mongo);
  const id = record._id;
  const winner = await insertOrHolder(
    () => intents.insert(record),
    () => (record.idempotency_key ? intents.byIdempotencyKey(auth.tenantId, record.idempotency_key) : Promise.resolve(null)),
  );
  if (winner) return { created: false, record: await replay(winner, deps), customerCreated: false };
  // The guard is won: this request alone makes the side writes.
  let customerCreated = false;
  const undo: (() => Promise<void>)[] = [];
  // Without its workflow the intent would never expire: take it all back so a retry starts clean. A record left
  // standing (its take-back failed) keeps its side writes, so a resend with its key can start it whole.
  const takeBack = async () => {
    if (!(await intents.takeBack(id).catch(() => null))) return;
    for (const step of undo) await step().catch(() => undefined);
  };
  try {
    for (const plan of sides.webhooks) {
      await storeWebhookSecrets(mongo, plan);
      undo.push(() => discardWebhookSecrets(mongo, plan));
    }
    const customer = sides.customer;
    if (customer?.input) {
      const upserted = await upsertCustomer(mongo, auth.tenantId, auth.region, customer.input, customer.id);
      undo.push(upserted.undo);
      customerCreated = upserted.created;
      if (upserted.record._id !== customer.id) {
        // Another request created this reference since we looked: the intent belongs to that customer.
        record.customer = upserted.record._id;
        record.contact = contactSnapshot(upserted.record);
        await intents.setCustomerBeforeStart(id, record.customer, record.contact);
      }
    }
  } catch (err) {
    await takeBack();
    throw err;
  }
  try {
    await startWorkflow(record, deps);
  } catch (err) {
    // A start that timed out on our side may have happened on the server: then the intent stands. Temporal
    // not answering counts as not started (the stranded-records sweep handles a take-back that fails).
    if ((await workflowExistence(deps.temporal, id)) === true) return { created: true, record, customerCreated };
    await takeBack();
    throw err;
  }
  return { created: true, record, customerCreated };
}

/**
 * The intent's customer, read without writing: a `cus_...` id must name one of the tenant's customers; an
 * inline object is upserted after the guard, under the id predicted here.
 */
export async function customerOf(deps: AppDeps, auth: AuthContext, given: CreateBody['customer']): Promise<{ id: string; input?: CustomerInput } | null> {
  if (given === undefined) return null;
  if (typeof given === 'string') {
    if (!(await findCustomer(deps.mongo, auth.tenantId, given)))
      throw new DomainError('invalid_request', 'resource_missing', `No such customer: '${given}'`, 'customer');
    return { id: given };
  }
  return { id: await predictCustomerId(deps.mongo, auth.tenantId, auth.region, given), input: given };
}

/** A create repeated with a known idempotency key: the same intent, its workflow started if it never was. */
async function replay(existing: PaymentIntentRecord, deps: AppDeps): Promise<PaymentIntentRecord> {
  if (existing.version === 0) {
    // The first creator may have died between its insert and its start; starting again is harmless once what
    // it writes after the insert is there. A duplicate sent at the same moment waits for a first request still
    // writing them. Not there after that (it died first): started now, the intent would send webhooks with no
    // secret and name a customer never made, so it is left to the stranded-records sweep, after which the key
    // makes it afresh.
    if (!(await sideWritesLandedSoon(existing, deps)))
      throw new DomainError('unavailable', 'service_unavailable', 'The first request with this idempotency key has not finished: retry shortly');
    await startWorkflow(existing, deps);
  }
  return existing;
}

/** How long a resend waits for a concurrent first request (alive, still writing) to store its side writes. */
const SIDE_WRITES_WAIT_MS = 3_000;

/** sideWritesLanded, asked again every 50 ms for up to SIDE_WRITES_WAIT_MS: a duplicate sent at the same moment joins the first. */
async function sideWritesLandedSoon(r: PaymentIntentRecord, deps: AppDeps): Promise<boolean> {
  const until = Date.now() + SIDE_WRITES_WAIT_MS;
  for (;;) {
    if (await sideWritesLanded(r, deps)) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Whether an unstarted intent's side writes (its webhook secrets, an inline customer) are all stored. Its
 * customer counts when it has a record, deleted or not: one given by id and deleted since is not a side write.
 */
async function sideWritesLanded(r: PaymentIntentRecord, deps: AppDeps): Promise<boolean> {
  const secretIds = new Set([...r.webhooks, ...(r.legacy_webhooks ?? [])].flatMap((w) => (w.secretRef ? [secretsRecordOf(w.secretRef)] : [])));
  const secrets = webhookSecretData(deps.mongo);
  for (const id of secretIds) if (!(await secrets.stored(r.tenant_id, id))) return false;
  return !r.customer || (await customerData(deps.mongo).findAny(r.tenant_id, r.customer)) !== null;
}

function createView(r: PaymentIntentRecord, deps: AppDeps, created: boolean) {
  const { created_at: _c, ...view } = intentView(r, deps);
  return { ...view, resource_created: created };
}

/** The tenant's intent by any of its three ids (`pi_...`, the older interface's UUID or integer secret). */
export async function getPaymentIntent(deps: AppDeps, tenantId: string, id: string): Promise<PaymentIntentRecord> {
  const r = await paymentIntentData(deps.mongo).findByRef(tenantId, id);
  if (!r) throw notFound('payment_intent', id, 'payment_intent');
  return r;
}

export async function cancelPaymentIntent(deps: AppDeps, tenantId: string, id: string) {
  const r = await getPaymentIntent(deps, tenantId, id);
  // An invoice's intent is its subscription's to let go, as Stripe refuses too: canceled here, the invoice stayed
  // open with no intent, and its customer could not pay it on the intent's page.
  if (r.owner?.startsWith('sub_'))
    throw invalidRequest('payment_intent_invoice_owned', `This payment intent pays invoice ${r.metadata.invoice ?? ''} of subscription ${r.owner}: void the invoice instead (POST /v202607/invoices/{id}/void)`);
  return cancelIntentAsRead(deps, r);
}

/** Cancels the intent `r` as the request read it (exported for the test of a stale read). */
export async function cancelIntentAsRead(deps: AppDeps, r: PaymentIntentRecord) {
  const handle = deps.temporal.workflow.getHandle(r._id);
  const view = await runUpdate(
    deps,
    () => handle.executeUpdate(cancelUpdate),
    () => closedIntentConflict(deps, r, ' and can no longer be canceled'),
  );
  return view;
}

/**
 * The intent's workflow has closed, so the request is refused with how the intent ended, read again: the
 * request's own read may predate the close (a concurrent cancel that won would otherwise read as `pending`).
 */
async function closedIntentConflict(deps: AppDeps, r: PaymentIntentRecord, more = ''): Promise<never> {
  const now = (await paymentIntentData(deps.mongo).findByRef(r.tenant_id, r._id)) ?? r;
  throw new DomainError('conflict', 'payment_intent_unexpected_state', `${notPendingMessage(now.status)}${more}`);
}

/** Each connector's gateway task queue (workflows/task-queues.ts): the workflow sends that gateway's calls there. */
function gatewayQueuesOf(deps: AppDeps, ids: readonly string[], connectors: readonly ConnectorRecord[]): Record<string, string> {
  const queues: Record<string, string> = {};
  for (const c of connectors) if (ids.includes(c._id)) queues[c._id] = gatewayTaskQueue(deps.config.TEMPORAL_TASK_QUEUE, c.gateway);
  return queues;
}

/**
 * A customer's attempt, with the connectors it may use decided now (api/payment-methods/resolve.ts): an
 * unpinned intent is paid through the tenant's checkout as it stands, a pinned one through its pin's
 * connectors still live. A named connector outside them is refused here; the workflow gets the connector
 * to try (the named one, else the checkout's first) and the list it may fail over along (`connectors`,
 * `failover`). An intent the record says is no longer pending goes straight to the workflow, which answers 409.
 */
export async function submitAttempt(deps: AppDeps, r: PaymentIntentRecord, input: AttemptInput) {
  const handle = deps.temporal.workflow.getHandle(r._id);
  let routed: AttemptInput & Partial<AttemptRouting> = input;
  if (r.status === 'pending') {
    const { checkout, connectors } = await intentCheckout(deps.mongo, r);
    routed = { ...input, ...attemptRouting(checkout, input.connector), gatewayQueues: gatewayQueuesOf(deps, checkout.connectors, connectors) };
  }
  return runUpdate(
    deps,
    () => handle.executeUpdate(attemptUpdate, { args: [routed] }),
    () => closedIntentConflict(deps, r),
  );
}
