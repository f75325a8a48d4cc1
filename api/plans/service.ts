import { invalidRequest, notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import type { Mongo } from '../../platform/mongo';
import { unixSeconds } from '../../domain/billing/snapshots';
import { createOnceForRequest } from '../../data/keyed-create';
import type { PlanRecord } from '../../platform/billing-records';
import { idempotencyScope } from '../../data/idempotency';
import { planData } from '../../data/plans';
import { storedTiers, type PlanCreateBody, type PlanUpdateBody, type PlanView } from './schemas';

/** A time as billing objects show it: Unix seconds. */

/** Stripe's metadata update: keys merged into what there is, a key with an empty value removed (at most 50 after). */
export function mergeMetadata(current: Record<string, string>, change: Record<string, string>): Record<string, string> {
  const out = new Map(Object.entries(current));
  for (const [k, v] of Object.entries(change)) {
    if (v === '') out.delete(k);
    else out.set(k, v);
  }
  if (out.size > 50) throw invalidRequest('parameter_invalid', 'Invalid metadata: at most 50 keys (after merging with the keys already set)', 'metadata');
  return Object.fromEntries(out);
}

/** A stored plan in its one public shape. */
export function planView(p: PlanRecord): PlanView {
  return {
    plan: p._id,
    object: 'plan',
    active: p.active,
    amount: p.billing_scheme === 'tiered' ? null : p.amount,
    currency: p.currency,
    interval: p.interval,
    interval_count: p.interval_count,
    trial_period_days: p.trial_period_days,
    nickname: p.nickname,
    billing_scheme: p.billing_scheme,
    tiers_mode: p.tiers_mode,
    tiers: p.tiers ? p.tiers.map((t) => ({ up_to: t.up_to, unit_amount: t.unit_amount, flat_amount: t.flat_amount })) : null,
    metadata: p.metadata,
    created: unixSeconds(p.created_at),
  };
}

/**
 * Creates a plan, or answers the one this idempotency key made (`created` false) when asked with the same
 * parameters; other parameters are a 400 `idempotency_key_in_use`. Two concurrent creates with one key: the
 * unique idempotency scope lets one insert win; the other answers the winner's plan, or is refused.
 */
export async function createPlan(mongo: Mongo, tenantId: string, region: string, body: PlanCreateBody): Promise<{ record: PlanRecord; created: boolean }> {
  const data = planData(mongo);
  const id = newId('plan', region);
  const scope = idempotencyScope(tenantId, body.idempotency_key, id);
  const now = new Date();
  const tiered = body.billing_scheme === 'tiered';
  const record: PlanRecord = {
    _id: id,
    tenant_id: tenantId,
    amount: tiered ? 0 : body.amount!,
    currency: body.currency,
    interval: body.interval,
    interval_count: body.interval_count,
    trial_period_days: body.trial_period_days ?? null,
    nickname: body.nickname ?? null,
    billing_scheme: body.billing_scheme,
    tiers_mode: tiered ? body.tiers_mode! : null,
    tiers: tiered ? storedTiers(body.tiers!) : null,
    active: true,
    metadata: body.metadata ?? {},
    idempotency_scope: scope,
    created_at: now,
    updated_at: now,
  };
  return createOnceForRequest(data, body, record, 'plan');
}

export async function getPlan(mongo: Mongo, tenantId: string, id: string): Promise<PlanRecord> {
  const plan = await planData(mongo).find(tenantId, id);
  if (!plan) throw notFound('plan', id, 'plan');
  return plan;
}

/** Nickname and metadata only: a plan's price never changes. */
export async function updatePlan(mongo: Mongo, tenantId: string, id: string, body: PlanUpdateBody): Promise<PlanRecord> {
  const current = await getPlan(mongo, tenantId, id);
  const set: Partial<Pick<PlanRecord, 'nickname' | 'metadata'>> = {};
  if (body.nickname !== undefined) set.nickname = body.nickname === '' ? null : body.nickname;
  if (body.metadata !== undefined) set.metadata = mergeMetadata(current.metadata, body.metadata);
  const updated = await planData(mongo).update(tenantId, id, set);
  if (!updated) throw notFound('plan', id, 'plan');
  return updated;
}

/** Archives a plan (idempotent): it takes no new subscriptions; those it has keep it. */
export async function archivePlan(mongo: Mongo, tenantId: string, id: string): Promise<PlanRecord> {
  const current = await getPlan(mongo, tenantId, id);
  if (!current.active) return current;
  const updated = await planData(mongo).update(tenantId, id, { active: false });
  if (!updated) throw notFound('plan', id, 'plan');
  return updated;
}
