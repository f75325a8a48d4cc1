import { randomUUID } from 'node:crypto';
import { DomainError, invalidRequest } from '../../domain/errors';
import { recipientRule } from '../../domain/payouts';
import type { GatewayAdapter } from '../../gateways/types';
import type { ConnectorRecord, PayoutRecipientRecord, TenantRecord } from '../../platform/records';
import { connectorData } from '../../data/connectors';
import { idempotencyScope, insertOrHolder } from '../../data/idempotency';
import { payoutRecipientData } from '../../data/payout-recipients';
import { sequencesFor } from '../../data/sequences';
import { tenantData } from '../../data/tenants';
import type { AppDeps, AuthContext } from '../deps';
import type { RecipientCreateBody, RecipientView } from './schemas';

/** The key's tenant, with the integer the payout interface shows as `tenant_id`. */
export interface PayoutTenant {
  id: string;
  number: number;
  payoutTimeoutSeconds: number | null;
}

/**
 * Whether a request's `tenant` parameter names `tenant`: by its id, its name or its integer tenant_id. Payouts
 * and the older payment intents take the same forms, so one merchant integration sends one value to both.
 */
export function namesTenant(tenant: TenantRecord, given: string): boolean {
  return given === tenant._id || given === tenant.name || given === String(tenant.number);
}

/**
 * The tenant a payout request acts for: always the key's own. A `tenant` parameter may name it (namesTenant)
 * and is refused when it names any other; a key whose tenant row is gone is refused too.
 */
export async function payoutTenant(deps: AppDeps, auth: AuthContext, given?: string): Promise<PayoutTenant> {
  const tenant = await tenantData(deps.mongo).find(auth.tenantId);
  if (!tenant) throw invalidRequest('tenant_missing', "The key's tenant no longer exists", 'tenant');
  if (given !== undefined && !namesTenant(tenant, given)) {
    throw invalidRequest('tenant_mismatch', 'tenant must name the tenant of the API key (or be omitted)', 'tenant');
  }
  return { id: tenant._id, number: tenant.number, payoutTimeoutSeconds: tenant.payout_timeout_seconds ?? null };
}

/** The tenant's live connector that registers `gateway` for payouts; 400 naming `gateway` otherwise. */
export async function payoutConnector(deps: AppDeps, tenantId: string, gateway: string): Promise<{ connector: ConnectorRecord; adapter: GatewayAdapter }> {
  const connectors = await connectorData(deps.mongo).ofTenant(tenantId);
  const connector = connectors.find((c) => c.gateway === gateway && c.payouts && c.live);
  if (!connector || !deps.gateways.names().includes(gateway)) {
    const usable = [...new Set(connectors.filter((c) => c.payouts && c.live).map((c) => c.gateway))];
    throw invalidRequest('gateway_invalid', `"${gateway}" is not a gateway registered for payouts for this tenant${usable.length ? ` (registered: ${usable.join(', ')})` : ''}`, 'gateway');
  }
  return { connector, adapter: deps.gateways.get(gateway) };
}

export function recipientView(r: PayoutRecipientRecord): RecipientView {
  return {
    id: r.id,
    uuid: r._id,
    tenant_id: r.tenant_number,
    gateway: r.gateway,
    recipient_type: r.recipient_type,
    gateway_recipient_id: r.gateway_recipient_id,
    bank_account_number: r.bank_account_number,
    bank_account_name: r.bank_account_name,
    bank_code: r.bank_code,
    bank_name: r.bank_name,
    mobile_money_number: r.mobile_money_number,
    mobile_money_provider: r.mobile_money_provider,
    name: r.name,
    email: r.email,
    phone: r.phone,
    metadata: r.metadata,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export type RecipientFieldsInput = Omit<RecipientCreateBody, 'gateway' | 'idempotency_key' | 'metadata'> & { metadata?: Record<string, string> };

const orNull = (v: string | undefined) => v ?? null;

/** The fields that say where a recipient's money goes; its name, email, phone, bank_name and metadata only describe it. */
const DESTINATION_FIELDS = ['bank_account_number', 'bank_account_name', 'bank_code', 'mobile_money_number', 'mobile_money_provider'] as const;

/** Whether `fields` through `gateway` send money where `r` does: a same-key repeat may differ only in how it is described. */
export function sameDestination(r: PayoutRecipientRecord, gateway: string, fields: Partial<Record<(typeof DESTINATION_FIELDS)[number], string>>): boolean {
  return r.gateway === gateway && DESTINATION_FIELDS.every((f) => r[f] === orNull(fields[f]));
}

/**
 * Registers a recipient with the gateway and keeps it. The insert comes first (its unique idempotency scope
 * decides between concurrent duplicates), then the gateway registration under the recipient's uuid (the
 * gateway applies it once); a duplicate that finds the winner still registering registers under the same
 * uuid and gets the same answer. A recipient the gateway refuses (or cannot be asked about) is removed:
 * the request is refused and leaves nothing behind.
 */
export async function registerRecipient(
  deps: AppDeps,
  tenant: PayoutTenant,
  gateway: { name: string; adapter: GatewayAdapter },
  fields: RecipientFieldsInput,
  scope: { key: string | null; value: string | null },
): Promise<{ record: PayoutRecipientRecord; created: boolean }> {
  const data = payoutRecipientData(deps.mongo);
  /** The recipient this scope holds (made before, or by a concurrent request): answered only for the same destination. */
  const held = async (r: PayoutRecipientRecord) => {
    if (!sameDestination(r, gateway.name, fields))
      throw invalidRequest('idempotency_key_in_use', 'This idempotency_key was used for another destination (gateway, bank account or wallet): use a new key for a new one', 'idempotency_key');
    return { record: await ensureRegistered(deps, r, gateway.adapter), created: false };
  };
  if (scope.value) {
    const existing = await data.byScope(scope.value);
    if (existing) return held(existing);
  }
  // The request schema has applied the rule; here it only says which kind the fields describe.
  const rule = recipientRule(fields);
  if (!rule.ok) throw new Error(`registerRecipient: fields that break the recipient rule (${rule.kind})`);
  const uuid = randomUUID();
  const now = new Date();
  const record: PayoutRecipientRecord = {
    _id: uuid,
    id: await sequencesFor(deps.mongo).next('payout_recipients'),
    tenant_id: tenant.id,
    tenant_number: tenant.number,
    gateway: gateway.name,
    recipient_type: rule.kind,
    gateway_recipient_id: null,
    bank_account_number: orNull(fields.bank_account_number),
    bank_account_name: orNull(fields.bank_account_name),
    bank_code: orNull(fields.bank_code),
    bank_name: orNull(fields.bank_name),
    mobile_money_number: orNull(fields.mobile_money_number),
    mobile_money_provider: orNull(fields.mobile_money_provider),
    name: orNull(fields.name),
    email: orNull(fields.email),
    phone: orNull(fields.phone),
    metadata: fields.metadata ?? {},
    idempotency_key: scope.key,
    idempotency_scope: scope.value ?? uuid,
    created_at: now,
    updated_at: now,
  };
  const winner = await insertOrHolder(
    () => data.insert(record),
    () => (scope.value ? data.byScope(scope.value) : Promise.resolve(null)),
  );
  if (winner) return held(winner);
  return { record: await ensureRegistered(deps, record, gateway.adapter), created: true };
}

/**
 * Registers `r` with the gateway unless it is already. No answer takes back only a record nobody else can find (no
 * key: its scope is its own id). A keyed one stays, unregistered, for the next request with its key to register
 * (the gateway's key is the record's uuid): a same-key request may be registering it at that moment, and on
 * FerretDB a conditional delete is a read and a separate write, so "only while unregistered" could still delete
 * one just answered. An inserter whose answer was lost answers the record a same-key request registered meanwhile.
 * A refusal takes it back whoever asked (the same fields are refused again, so nobody can be registering it).
 */
export async function ensureRegistered(
  deps: AppDeps,
  r: PayoutRecipientRecord,
  adapter: GatewayAdapter,
  /** A payout names the recipient (`param`): others can reach it, so no answer never takes it back. */
  namedBy?: { param: string },
): Promise<PayoutRecipientRecord> {
  if (r.gateway_recipient_id) return r;
  const data = payoutRecipientData(deps.mongo);
  let outcome;
  try {
    outcome = await adapter.registerRecipient({
      idempotencyKey: r._id,
      recipientType: r.recipient_type,
      ...(r.bank_account_number ? { bankAccountNumber: r.bank_account_number } : {}),
      ...(r.bank_account_name ? { bankAccountName: r.bank_account_name } : {}),
      ...(r.bank_code ? { bankCode: r.bank_code } : {}),
      ...(r.mobile_money_number ? { mobileMoneyNumber: r.mobile_money_number } : {}),
      ...(r.mobile_money_provider ? { mobileMoneyProvider: r.mobile_money_provider } : {}),
      ...(r.name ? { name: r.name } : {}),
    });
  } catch (err) {
    deps.logger.warn({ err: String(err), recipient: r._id }, 'recipient registration got no answer from the gateway');
    // A keyless record is reached only by the request that inserted it (not by a payout naming it: it stands).
    if (r.idempotency_scope === r._id && !namedBy) await data.removeUnregistered(r.tenant_id, r._id);
    else {
      const now = await data.find(r.tenant_id, r._id);
      if (now?.gateway_recipient_id) return now;
    }
    throw new DomainError('unavailable', 'gateway_unavailable', 'The gateway did not answer the recipient registration; retry the request', undefined, 5);
  }
  if (outcome.status === 'rejected') {
    await data.removeUnregistered(r.tenant_id, r._id);
    throw invalidRequest(
      'recipient_registration_failed',
      `The gateway refused the recipient: ${outcome.failureCode}: ${outcome.failureMessage}`,
      namedBy?.param ?? (r.bank_account_number ? 'bank_account_number' : 'mobile_money_number'),
    );
  }
  // Gone meanwhile: its inserter's own registration failed and took it back. Nothing stands under the key now,
  // so the request is answered as that failure was, and sent again it registers afresh.
  if (!(await data.registered(r.tenant_id, r._id, outcome.gatewayRecipientId)))
    throw new DomainError('unavailable', 'gateway_unavailable', 'A concurrent request with this idempotency key failed to register the recipient; retry the request', undefined, 1);
  return { ...r, gateway_recipient_id: outcome.gatewayRecipientId };
}

/**
 * POST /payout-recipients: 201 for a new recipient, 200 for the one a repeated idempotency_key made, 400
 * `idempotency_key_in_use` when that one has another gateway or destination.
 */
export async function createRecipient(deps: AppDeps, auth: AuthContext, body: RecipientCreateBody) {
  const tenant = await payoutTenant(deps, auth);
  const { adapter } = await payoutConnector(deps, tenant.id, body.gateway);
  const { gateway, idempotency_key, ...fields } = body;
  const scope = idempotency_key ? idempotencyScope(tenant.id, idempotency_key, '') : null;
  const { record, created } = await registerRecipient(deps, tenant, { name: gateway, adapter }, fields, { key: idempotency_key ?? null, value: scope });
  return {
    status: created ? 201 : 200,
    body: { recipient_uuid: record._id, gateway_recipient_id: record.gateway_recipient_id!, resource_created: created },
  };
}
