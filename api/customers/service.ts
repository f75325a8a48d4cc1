import { invalidRequest, notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import { isDuplicateKeyError, type Mongo } from '../../platform/mongo';
import type { CustomerRecord } from '../../platform/records';
import type { CustomerInput } from './schemas';

export function customerView(c: CustomerRecord) {
  return {
    customer: c._id,
    reference: c.reference,
    first_name: c.first_name,
    last_name: c.last_name,
    email: c.email,
    phone_number: c.phone_number,
    ...(c.address ? { address: c.address } : {}),
    created_at: c.created_at.toISOString(),
  };
}

const FIELDS = ['reference', 'first_name', 'last_name', 'email', 'phone_number', 'address'] as const;

/** Only the fields the caller supplied: omitted ones stay as they are. */
function suppliedFields(input: CustomerInput): Partial<CustomerRecord> {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) if (input[f] !== undefined) out[f] = input[f];
  return out as Partial<CustomerRecord>;
}

/**
 * The spec's reconciliation: a known `reference` updates that customer (partially), a new or missing one
 * creates a customer. Two concurrent creates with one reference: the unique reference_scope lets one insert
 * win; the other retries as an update of the winner.
 */
export async function upsertCustomer(mongo: Mongo, tenantId: string, region: string, input: CustomerInput): Promise<{ record: CustomerRecord; created: boolean }> {
  const now = new Date();
  for (let tries = 0; tries < 3; tries += 1) {
    if (input.reference) {
      const existing = await mongo.c.customers.findOne({ reference_scope: `${tenantId}:${input.reference}` });
      if (existing) {
        const record = await updateCustomer(mongo, tenantId, existing._id, input);
        return { record, created: false };
      }
    }
    const id = newId('cus', region);
    const record: CustomerRecord = {
      _id: id,
      tenant_id: tenantId,
      reference: input.reference ?? null,
      reference_scope: input.reference ? `${tenantId}:${input.reference}` : id,
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: input.email ?? null,
      phone_number: input.phone_number ?? null,
      address: input.address ?? null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    try {
      await mongo.c.customers.insertOne(record);
      return { record, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // lost a race on the reference: update the winner
    }
  }
  throw new Error('customer upsert did not settle after 3 tries');
}

export async function findCustomer(mongo: Mongo, tenantId: string, id: string): Promise<CustomerRecord | null> {
  return mongo.c.customers.findOne({ _id: id, tenant_id: tenantId, deleted_at: null });
}

export async function updateCustomer(mongo: Mongo, tenantId: string, id: string, input: CustomerInput): Promise<CustomerRecord> {
  const current = await findCustomer(mongo, tenantId, id);
  if (!current) throw notFound('customer', id, 'customer');
  const set: Partial<CustomerRecord> = { ...suppliedFields(input), updated_at: new Date() };
  if (input.reference !== undefined && input.reference !== current.reference) set.reference_scope = `${tenantId}:${input.reference}`;
  if (input.address) set.address = { ...(current.address ?? {}), ...input.address };
  try {
    await mongo.c.customers.updateOne({ _id: id, tenant_id: tenantId }, { $set: set });
  } catch (err) {
    if (isDuplicateKeyError(err))
      throw invalidRequest('reference_in_use', `Another customer already has reference '${input.reference}'`, 'reference');
    throw err;
  }
  return { ...current, ...set } as CustomerRecord;
}

/** Deleting detaches the record: its reference is freed; intents and refunds made before keep their id. */
export async function deleteCustomer(mongo: Mongo, tenantId: string, id: string): Promise<void> {
  const res = await mongo.c.customers.updateOne(
    { _id: id, tenant_id: tenantId, deleted_at: null },
    { $set: { deleted_at: new Date(), reference_scope: id } },
  );
  if (res.matchedCount === 0) throw notFound('customer', id, 'customer');
}
