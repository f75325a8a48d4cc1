import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import { isDuplicateKeyError, type Mongo } from '../../platform/mongo';
import type { CustomerRecord } from '../../platform/records';
import type { CustomerInput } from './schemas';
import { customerData } from '../../data/customers';
import { testClockData } from '../../data/test-clocks';
import { referenceScope } from '../../data/idempotency';
import { CUSTOMER_ADDRESS_SINCE, type CustomerView } from '../../domain/views';

/** A stored customer in its one public shape (domain/views.ts), as the requested version shows it. */
export function customerView(c: CustomerRecord, requestedVersion: string | null): CustomerView {
  const withAddress = requestedVersion !== null && requestedVersion >= CUSTOMER_ADDRESS_SINCE;
  return {
    customer: c._id,
    reference: c.reference,
    first_name: c.first_name,
    last_name: c.last_name,
    email: c.email,
    phone_number: c.phone_number,
    ...(withAddress && c.address ? { address: c.address } : {}),
    test_clock: c.test_clock ?? null,
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

export interface UpsertedCustomer {
  record: CustomerRecord;
  created: boolean;
  /** Takes the write back (a create that failed after it): unless someone changed the customer since. */
  undo(): Promise<void>;
}

/**
 * The id an upsert of `input` will most likely answer, read without writing: the customer holding its
 * reference, else a fresh id for `upsertCustomer` to create it under. A create that must write nothing
 * before its guard decides puts this id in its record and upserts after.
 */
export async function predictCustomerId(mongo: Mongo, tenantId: string, region: string, input: CustomerInput): Promise<string> {
  const holder = input.reference ? await customerData(mongo).byReference(tenantId, input.reference) : null;
  return holder?._id ?? newId('cus', region);
}

/**
 * The spec's reconciliation: a known `reference` updates that customer (partially), a new or missing one
 * creates a customer (under `idForNew` when given). Two concurrent creates with one reference: the unique
 * reference_scope lets one insert win; the other retries as an update of the winner.
 */
export async function upsertCustomer(
  mongo: Mongo,
  tenantId: string,
  region: string,
  input: CustomerInput,
  idForNew?: string,
): Promise<UpsertedCustomer> {
  const now = new Date();
  // A new customer's clock must be the tenant's: checked before anything is written.
  let clockChecked = false;
  for (let tries = 0; tries < 3; tries += 1) {
    if (input.reference) {
      const existing = await customerData(mongo).byReference(tenantId, input.reference);
      if (existing) {
        const updated = await applyUpdate(mongo, tenantId, existing._id, input).catch((err: unknown) => {
          // Deleted since found (its reference freed): the next try makes a customer with it.
          if (err instanceof DomainError && err.kind === 'not_found') return null;
          throw err;
        });
        if (updated) return { record: updated.record, created: false, undo: updated.undo };
        continue;
      }
    }
    if (input.test_clock !== undefined && !clockChecked) {
      if (!(await testClockData(mongo).find(tenantId, input.test_clock)))
        throw invalidRequest('resource_missing', `No such test clock: '${input.test_clock}'`, 'test_clock');
      clockChecked = true;
    }
    const id = tries === 0 && idForNew ? idForNew : newId('cus', region);
    const record: CustomerRecord = {
      _id: id,
      tenant_id: tenantId,
      reference: input.reference ?? null,
      reference_scope: referenceScope(tenantId, input.reference, id),
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      email: input.email ?? null,
      phone_number: input.phone_number ?? null,
      address: input.address ?? null,
      test_clock: input.test_clock ?? null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    try {
      await customerData(mongo).insert(record);
      const undo = () => customerData(mongo).removeIfUnchanged(id, now);
      return { record, created: true, undo };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // lost a race on the reference: update the winner
    }
  }
  throw new Error('customer upsert did not settle after 3 tries');
}

/**
 * The customer's contact as an intent made now records it (the older interface's tenant_initial_user_data):
 * the stored customer with what an inline customer gives laid over it, as its upsert is about to write.
 */
export function contactSnapshot(
  stored: Pick<CustomerRecord, 'email' | 'phone_number'> | null,
  given?: Pick<CustomerInput, 'email' | 'phone_number'>,
): { phone_number: string | null; email: string | null } {
  return {
    phone_number: given?.phone_number ?? stored?.phone_number ?? null,
    email: given?.email ?? stored?.email ?? null,
  };
}

export async function findCustomer(mongo: Mongo, tenantId: string, id: string): Promise<CustomerRecord | null> {
  return customerData(mongo).find(tenantId, id);
}

export async function updateCustomer(mongo: Mongo, tenantId: string, id: string, input: CustomerInput): Promise<CustomerRecord> {
  return (await applyUpdate(mongo, tenantId, id, input)).record;
}

async function applyUpdate(mongo: Mongo, tenantId: string, id: string, input: CustomerInput): Promise<{ record: CustomerRecord; undo(): Promise<void> }> {
  const current = await findCustomer(mongo, tenantId, id);
  if (!current) throw notFound('customer', id, 'customer');
  // The clock a customer lives on is set at create, for good: its subscriptions' times follow it.
  if (input.test_clock !== undefined && input.test_clock !== (current.test_clock ?? null))
    throw invalidRequest('parameter_invalid', 'test_clock cannot be changed after the customer is created', 'test_clock');
  const set: Partial<CustomerRecord> = { ...suppliedFields(input), updated_at: new Date() };
  const newReference = input.reference !== undefined && input.reference !== current.reference ? input.reference : null;
  const newScope = newReference !== null ? referenceScope(tenantId, newReference, id) : null;
  if (newScope) set.reference_scope = newScope;
  if (input.address) set.address = { ...(current.address ?? {}), ...input.address };
  const referenceInUse = () => invalidRequest('reference_in_use', `Another customer already has reference '${input.reference}'`, 'reference');
  // An update that breaks the unique reference index is E11000 on MongoDB but a generic error on the local
  // FerretDB: look first, so the usual case is a clear 400 on either.
  const taken = () => (newReference !== null ? customerData(mongo).referenceTaken(tenantId, newReference, id) : Promise.resolve(false));
  if (await taken()) throw referenceInUse();
  let updated: boolean;
  try {
    updated = await customerData(mongo).update(tenantId, id, set);
  } catch (err) {
    // A concurrent update took the reference between our look and our write.
    if (isDuplicateKeyError(err) || (await taken())) throw referenceInUse();
    throw err;
  }
  // Deleted since we read it: a 404, as after the delete (its reference, freed by the delete, stays free).
  if (!updated) throw notFound('customer', id, 'customer');
  const previous = Object.fromEntries(Object.keys(set).map((k) => [k, current[k as keyof CustomerRecord]]));
  const undo = () => customerData(mongo).restoreIfUnchanged(id, set.updated_at!, previous);
  return { record: { ...current, ...set } as CustomerRecord, undo };
}
