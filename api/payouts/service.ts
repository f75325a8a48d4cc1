import { canonicalWebhookUrl } from '../../data/webhook-endpoints';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { baseStatusOf, DEFAULT_PAYOUT_TIMEOUT_SECONDS, isFinalPayoutStatus, statusCodeOf } from '../../domain/payouts';
import { formatMoney } from '../../domain/money';
import type { PayoutRecord, PayoutRecipientRecord } from '../../platform/records';
import { isDuplicateKeyError } from '../../platform/mongo';
import { workflowExistence } from '../../platform/temporal';
import { idempotencyScope, inlineRecipientScope } from '../../data/idempotency';
import { payoutData } from '../../data/payouts';
import { payoutRecipientData } from '../../data/payout-recipients';
import { sequencesFor } from '../../data/sequences';
import { tenantData } from '../../data/tenants';
import { PAYOUT_WORKFLOW, payoutInitiatedUpdate, type PayoutInput, type PayoutSnapshot } from '../../workflows/payout/messages';
import type { payoutWorkflow } from '../../workflows/payout/workflow';
import { SA } from '../../workflows/search-attributes';
import type { AppDeps, AuthContext } from '../deps';
import { discardWebhookSecrets, planSharedSecretWebhooks, secretRef, storeWebhookSecrets } from '../events/endpoints';
import { freshStart, runUpdate } from '../http/workflow-calls';
import { ensureRegistered, payoutConnector, payoutTenant, recipientView, registerRecipient, sameDestination } from '../payout-recipients/service';
import type { PayoutCreateBody, PayoutView } from './schemas';
import { gatewayTaskQueue } from '../../workflows/task-queues';

/** How long POST /payouts waits for the gateway's answer to the transfer request before answering. */
export const INITIATION_WAIT_MS = 15_000;

export function payoutView(p: PayoutRecord, recipient: PayoutRecipientRecord | null): PayoutView {
  return {
    id: p.id,
    uuid: p._id,
    tenant_id: p.tenant_number,
    recipient_uuid: p.recipient_uuid,
    recipient: recipient ? recipientView(recipient) : null,
    gateway: p.gateway,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    sub_status: p.sub_status,
    gateway_payout_id: p.gateway_payout_id,
    failure_reason: p.failure_reason,
    narration: p.narration,
    metadata: p.metadata,
    webhook_urls: p.webhook_urls,
    timeout_seconds: p.timeout_seconds,
    expires_at: p.expires_at.toISOString(),
    late_outcome: p.late_outcome ? { status: p.late_outcome.status, at: p.late_outcome.at.toISOString() } : null,
    idempotency_key: p.idempotency_key,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

/** The payouts of one page with their recipients, in one read of the recipients. */
export async function withRecipients(deps: AppDeps, tenantId: string, payouts: PayoutRecord[]): Promise<PayoutView[]> {
  const ids = [...new Set(payouts.map((p) => p.recipient_uuid))];
  const recipients = await payoutRecipientData(deps.mongo).some(tenantId, ids);
  const byId = new Map(recipients.map((r) => [r._id, r]));
  return payouts.map((p) => payoutView(p, byId.get(p.recipient_uuid) ?? null));
}

/** The POST answer: the payout's state as the workflow (or, once it has ended, the record) reports it. */
function createResponse(state: Pick<PayoutSnapshot, 'payout_uuid' | 'status' | 'gateway_payout_id'>, recipientUuid: string, created: boolean) {
  return { payout_uuid: state.payout_uuid, recipient_uuid: recipientUuid, status: state.status, gateway_payout_id: state.gateway_payout_id, resource_created: created };
}

const recordState = (p: PayoutRecord) => ({ payout_uuid: p._id, status: p.sub_status, gateway_payout_id: p.gateway_payout_id });

function workflowInput(deps: AppDeps, p: PayoutRecord, recipient: PayoutRecipientRecord): PayoutInput {
  return {
    id: p._id,
    number: p.id,
    tenantId: p.tenant_id,
    tenantNumber: p.tenant_number,
    region: p.region,
    connectorId: p.connector_id,
    gateway: p.gateway,
    amount: p.amount,
    currency: p.currency,
    recipient: {
      uuid: recipient._id,
      gatewayRecipientId: recipient.gateway_recipient_id!,
      recipientType: recipient.recipient_type,
      bankAccountNumber: recipient.bank_account_number,
      mobileMoneyNumber: recipient.mobile_money_number,
      mobileMoneyProvider: recipient.mobile_money_provider,
    },
    narration: p.narration,
    metadata: p.metadata,
    // Every webhook_url shares the one webhook_secret, kept in webhook_secrets under webhook_secret_ref.
    webhooks: p.webhook_urls.map((url, i) => ({ url, events: [], ...(p.webhook_secret_ref ? { secretRef: secretRef(p.webhook_secret_ref, i) } : {}) })),
    timeoutSeconds: p.timeout_seconds,
    createdAt: p.created_at.toISOString(),
    webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
    gatewayTaskQueue: gatewayTaskQueue(deps.config.TEMPORAL_TASK_QUEUE, p.gateway),
  };
}

/**
 * Starts the payout's workflow (or finds it running) and waits, at most INITIATION_WAIT_MS, for the gateway's
 * answer to the transfer request, in one call (Update-with-Start). The workflow id is the payout uuid and an
 * id is never reused, so a repeat can never start a second run (a second transfer request).
 */
async function startAndAwaitInitiation(deps: AppDeps, input: PayoutInput): Promise<PayoutSnapshot> {
  const start = new WithStartWorkflowOperation<typeof payoutWorkflow>(PAYOUT_WORKFLOW, {
    workflowId: input.id,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [
      { key: SA.TenantId, value: input.tenantId },
      { key: SA.PaymentStatus, value: 'pending_created' },
      { key: SA.AmountMinor, value: input.amount },
      { key: SA.Currency, value: input.currency },
      { key: SA.Connector, value: input.connectorId },
      { key: SA.ExpiresAt, value: new Date(new Date(input.createdAt).getTime() + input.timeoutSeconds * 1000) },
    ],
    staticSummary: `Payout ${formatMoney(input.amount, input.currency)} via ${input.gateway} for ${input.tenantId}`,
  });
  return runUpdate(
    deps,
    () => deps.temporal.workflow.executeUpdateWithStart(payoutInitiatedUpdate, { args: [{ waitMs: INITIATION_WAIT_MS }], startWorkflowOperation: freshStart(start) }),
    () => new DomainError('conflict', 'payout_closed', 'The payout has ended; read it with GET /payouts/{uuid}'),
  );
}

/**
 * Whether `body` asks for the payout `p` is: the same amount and currency, through the same gateway, to the same
 * recipient (by uuid, or inline with the same destination). Narration, metadata, webhooks and the window move no
 * money, so a repeat may differ in them and is still answered `p`.
 */
async function asksForPayout(deps: AppDeps, p: PayoutRecord, body: PayoutCreateBody): Promise<boolean> {
  if (p.amount !== body.amount || p.currency !== body.currency || p.gateway !== body.gateway) return false;
  if (body.recipient_uuid !== undefined) return p.recipient_uuid === body.recipient_uuid;
  const recipient = await payoutRecipientData(deps.mongo).find(p.tenant_id, p.recipient_uuid);
  // A payout's recipient is registered before it and never removed after; were it gone, nothing could be compared.
  return recipient === null || sameDestination(recipient, body.gateway, body);
}

/**
 * POST /payouts: 201 for a new payout and for the payout a repeated idempotency_key made (resource_created
 * false); 400 `idempotency_key_in_use` when that payout is another amount, currency, gateway or recipient (its
 * second amount would never move). Everything that can refuse the request (tenant, gateway, recipient, webhook URLs) is checked before
 * anything is written; an inline recipient is registered under a scope derived from the payout's key, so
 * concurrent repeats share one recipient. The API records the payout as `pending_created` (its unique
 * idempotency scope is the guard) and its workflow asks for the transfer.
 */
export async function createPayout(deps: AppDeps, auth: AuthContext, body: PayoutCreateBody) {
  const tenant = await payoutTenant(deps, auth, body.tenant);
  const payouts = payoutData(deps.mongo);
  const key = body.idempotency_key ?? null;
  let recipient: PayoutRecipientRecord | null = null;
  if (body.recipient_uuid) {
    recipient = await payoutRecipientData(deps.mongo).find(tenant.id, body.recipient_uuid);
    if (!recipient) throw invalidRequest('resource_missing', `No such payout recipient: '${body.recipient_uuid}'`, 'recipient_uuid');
    // Refused as the same contradiction inline is (the schema's recipient rule), a repeat of a key included.
    if (body.recipient_type !== undefined && body.recipient_type !== recipient.recipient_type)
      throw invalidRequest('parameter_invalid', `Invalid recipient_type: recipient_type is ${body.recipient_type} but the recipient ${recipient._id} is a ${recipient.recipient_type}`, 'recipient_type');
  }
  const repeated = async (existing: PayoutRecord) => {
    if (!(await asksForPayout(deps, existing, body)))
      throw invalidRequest('idempotency_key_in_use', 'This idempotency_key was used for another payout (another amount, currency, gateway or recipient): use a new key for a new payout', 'idempotency_key');
    return { status: 201, body: await repeat(deps, existing) };
  };
  if (key) {
    const existing = await payouts.byIdempotencyKey(tenant.id, key);
    if (existing) return repeated(existing);
  }

  // The gateway first: one not registered for payouts is gateway_invalid whether or not it is the recipient's.
  const { connector, adapter } = await payoutConnector(deps, tenant.id, body.gateway);
  if (recipient && recipient.gateway !== body.gateway)
    throw invalidRequest('gateway_mismatch', `The recipient is registered with gateway "${recipient.gateway}", not "${body.gateway}"`, 'gateway');
  // All webhook_urls share the one webhook_secret, sent back as Service-Webhook-Secret.
  const webhooks = planSharedSecretWebhooks(tenant.id, auth.region, body.webhook_urls, body.webhook_secret, deps.config);
  // A keyed recipient whose registration got no answer stays unregistered until something registers it: this
  // payout does, its checks done (the gateway's key is the recipient's uuid, so a registration beside it makes one).
  if (recipient && !recipient.gateway_recipient_id) recipient = await ensureRegistered(deps, recipient, adapter, { param: 'recipient_uuid' });
  if (!recipient) {
    // Last of the checks, first of the writes: concurrent repeats of one key register one recipient.
    const scope = key ? inlineRecipientScope(tenant.id, key) : null;
    ({ record: recipient } = await registerRecipient(deps, tenant, { name: body.gateway, adapter }, { ...body, metadata: undefined }, { key: null, value: scope }));
  }

  const uuid = randomUUID();
  const now = new Date();
  const timeoutSeconds = body.payout_timeout_seconds ?? tenant.payoutTimeoutSeconds ?? DEFAULT_PAYOUT_TIMEOUT_SECONDS;
  const record: PayoutRecord = {
    _id: uuid,
    id: await sequencesFor(deps.mongo).next('payouts'),
    tenant_id: tenant.id,
    tenant_number: tenant.number,
    region: auth.region,
    recipient_uuid: recipient._id,
    gateway: body.gateway,
    connector_id: connector._id,
    amount: body.amount,
    currency: body.currency,
    narration: body.narration ?? null,
    metadata: body.metadata ?? {},
    status: baseStatusOf('pending_created'),
    sub_status: 'pending_created',
    failure_reason: null,
    gateway_payout_id: null,
    // Stored and delivered as one receiver is known everywhere (its endpoint's id, health, replay): canonical.
    webhook_urls: (body.webhook_urls ?? []).map(canonicalWebhookUrl),
    webhook_secret_ref: webhooks.secrets ? webhooks.secrets._id : null,
    timeout_seconds: timeoutSeconds,
    expires_at: new Date(now.getTime() + timeoutSeconds * 1000),
    late_outcome: null,
    idempotency_key: key,
    idempotency_scope: idempotencyScope(tenant.id, key, uuid),
    created_at: now,
    updated_at: now,
    version: 0,
  };
  await storeWebhookSecrets(deps.mongo, webhooks);
  try {
    await payouts.insert(record);
  } catch (err) {
    await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
    if (!isDuplicateKeyError(err) || !key) throw err;
    const winner = await payouts.byIdempotencyKey(tenant.id, key);
    if (!winner) throw err;
    return repeated(winner);
  }
  let snapshot: PayoutSnapshot;
  try {
    snapshot = await startAndAwaitInitiation(deps, workflowInput(deps, record, recipient));
  } catch (err) {
    // No answer in time, though the start is part of the call: a payout whose workflow runs exists and will be
    // asked for, so it is answered as made (pending_created until the gateway answers). A 503 would have a
    // caller without a key send a second one.
    if (err instanceof DomainError && err.kind === 'unavailable' && (await workflowExistence(deps.temporal, uuid)) === true) {
      const now = (await payouts.find(tenant.id, uuid)) ?? record;
      return { status: 201, body: createResponse(recordState(now), recipient._id, true) };
    }
    throw err;
  }
  return { status: 201, body: createResponse(snapshot, recipient._id, true) };
}

/**
 * A repeated idempotency_key: the existing payout as it stands. One whose workflow may never have started
 * (the API stopped between the insert and the start) is started now, from its record.
 */
async function repeat(deps: AppDeps, existing: PayoutRecord) {
  if (existing.version === 0 && !isFinalPayoutStatus(existing.sub_status)) {
    const recipient = await payoutRecipientData(deps.mongo).find(existing.tenant_id, existing.recipient_uuid);
    if (recipient?.gateway_recipient_id) {
      try {
        return createResponse(await startAndAwaitInitiation(deps, workflowInput(deps, existing, recipient)), existing.recipient_uuid, false);
      } catch (err) {
        // Its workflow already ran to the end: the record (read again below) has its outcome.
        if (!(err instanceof DomainError) || err.code !== 'payout_closed') throw err;
      }
    }
  }
  const current = (await payoutData(deps.mongo).find(existing.tenant_id, existing._id)) ?? existing;
  return createResponse(recordState(current), current.recipient_uuid, false);
}

/** GET /payouts/{uuid}: the payout with its recipient, or null (another tenant's payout reads as missing). */
export async function getPayout(deps: AppDeps, tenantId: string, uuid: string): Promise<PayoutView | null> {
  const p = await payoutData(deps.mongo).find(tenantId, uuid);
  if (!p) return null;
  return payoutView(p, await payoutRecipientData(deps.mongo).find(tenantId, p.recipient_uuid));
}

/**
 * GET /payouts/{uuid}/status: the gateway's current view of the transfer, asked now; nothing stored changes.
 * 404 for an unknown payout, one of another tenant, or one whose recipient is gone; 400 when the payout's
 * tenant row is gone or its gateway is no longer registered for payouts.
 */
export async function payoutGatewayStatus(deps: AppDeps, auth: AuthContext, uuid: string) {
  const p = await payoutData(deps.mongo).find(auth.tenantId, uuid);
  if (!p) throw notFound('payout', uuid, 'uuid');
  const recipient = await payoutRecipientData(deps.mongo).find(auth.tenantId, p.recipient_uuid);
  if (!recipient) throw notFound('payout recipient', p.recipient_uuid, 'uuid');
  if (!(await tenantData(deps.mongo).find(p.tenant_id))) throw invalidRequest('tenant_missing', "The payout's tenant no longer exists", 'uuid');
  const { adapter } = await payoutConnector(deps, p.tenant_id, p.gateway);
  let described;
  try {
    described = await adapter.describePayout(p._id);
  } catch (err) {
    // The adapter's message names the gateway's address and carries its reply: logged, never answered.
    deps.logger.warn({ err: String(err), payout: p._id }, 'the payout status question got no answer from the gateway');
    throw new DomainError('unavailable', 'gateway_unavailable', 'The gateway did not answer the status question; retry the request', undefined, 5);
  }
  if (!described) return { code: statusCodeOf('not_found'), error_message: 'The gateway has no transfer for this payout (it was never initiated, or was refused before it existed)' };
  const { outcome, raw } = described;
  const body: { code: ReturnType<typeof statusCodeOf>; response: Record<string, unknown>; error_message?: string } = { code: statusCodeOf(outcome.status), response: raw };
  if (outcome.status === 'pending') body.error_message = 'The transfer is still in flight at the gateway';
  else if (outcome.status === 'canceled') body.error_message = 'The transfer was canceled before it was made';
  else if (outcome.status === 'rejected' || outcome.status === 'failed') body.error_message = `${outcome.failureCode}: ${outcome.failureMessage}`;
  return body;
}
