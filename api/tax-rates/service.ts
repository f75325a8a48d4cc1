import { notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import type { Mongo } from '../../platform/mongo';
import { createOnceForRequest } from '../../data/keyed-create';
import type { TaxRateRecord } from '../../platform/billing-records';
import { idempotencyScope } from '../../data/idempotency';
import { taxRateData, type StoredTaxRate } from '../../data/tax-rates';
import { unixSeconds } from '../../domain/billing/snapshots';
import type { TaxRateCreateBody, TaxRateUpdateBody, TaxRateView } from './schemas';

/** A stored tax rate in its one public shape. */
export function taxRateView(r: TaxRateRecord): TaxRateView {
  return {
    tax_rate: r._id,
    object: 'tax_rate',
    active: r.active,
    percentage: r.percentage,
    inclusive: r.inclusive,
    display_name: r.display_name,
    jurisdiction: r.jurisdiction,
    description: (r as StoredTaxRate).description ?? null,
    created: unixSeconds(r.created_at),
  };
}

/** Creates a tax rate, or answers the one this idempotency key made with the same parameters (`created` false; other ones are a 400). */
export async function createTaxRate(mongo: Mongo, tenantId: string, region: string, body: TaxRateCreateBody): Promise<{ record: StoredTaxRate; created: boolean }> {
  const data = taxRateData(mongo);
  const id = newId('txr', region);
  const scope = idempotencyScope(tenantId, body.idempotency_key, id);
  const record: StoredTaxRate = {
    _id: id,
    tenant_id: tenantId,
    percentage: body.percentage,
    inclusive: body.inclusive,
    display_name: body.display_name,
    jurisdiction: body.jurisdiction ?? null,
    description: body.description ?? null,
    active: true,
    idempotency_scope: scope,
    created_at: new Date(),
  };
  return createOnceForRequest(data, body, record, 'tax rate');
}

export async function getTaxRate(mongo: Mongo, tenantId: string, id: string): Promise<StoredTaxRate> {
  const rate = await taxRateData(mongo).find(tenantId, id);
  if (!rate) throw notFound('tax rate', id, 'tax_rate');
  return rate;
}

/** Display name, jurisdiction and `active` only: the percentage and inclusiveness never change. */
export async function updateTaxRate(mongo: Mongo, tenantId: string, id: string, body: TaxRateUpdateBody): Promise<StoredTaxRate> {
  const set: Partial<Pick<TaxRateRecord, 'display_name' | 'jurisdiction' | 'active'>> = {};
  if (body.display_name !== undefined) set.display_name = body.display_name;
  if (body.jurisdiction !== undefined) set.jurisdiction = body.jurisdiction;
  if (body.active !== undefined) set.active = body.active;
  if (Object.keys(set).length === 0) return getTaxRate(mongo, tenantId, id);
  const updated = await taxRateData(mongo).update(tenantId, id, set);
  if (!updated) throw notFound('tax rate', id, 'tax_rate');
  return updated;
}
