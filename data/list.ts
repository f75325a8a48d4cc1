import type { Collection, Filter } from 'mongodb';
import { invalidRequest } from '../domain/errors';

// The one cursor-list reader of every list (payment intents, refunds, customers, events): newest first
// (created_at desc, then _id desc), `limit`, `starting_after` / `ending_before` an id of the same list.
// Plain find/sort/limit with $and/$or: FerretDB supports these, and the list indexes serve them.

/** A Mongo condition on `created_at`. */
export interface CreatedFilter {
  $gt?: Date;
  $gte?: Date;
  $lt?: Date;
  $lte?: Date;
}

export interface PageQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  created?: CreatedFilter;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

const NOUNS: Record<string, string> = {
  payment_intents: 'payment intent',
  refunds: 'refund',
  customers: 'customer',
  events: 'event',
  saved_payment_methods: 'payment method',
  plans: 'plan',
  tax_rates: 'tax rate',
  coupons: 'coupon',
  promotion_codes: 'promotion code',
  subscriptions: 'subscription',
  invoices: 'invoice',
  credit_notes: 'credit note',
  test_clocks: 'test clock',
};

type Listed = { _id: string; created_at: Date; tenant_id: string };

/**
 * One page of `collection` matching `filter` (which must scope the tenant: `tenant_id`), newest first.
 * A cursor is looked up by id within the same tenant only, so another tenant's id is as unknown as a
 * made-up one: 400 resource_missing naming the parameter, as Stripe answers.
 */
export async function paginate<T extends Listed>(collection: Collection<T>, filter: Record<string, unknown>, page: PageQuery): Promise<Page<T>> {
  const tenantId = filter.tenant_id;
  if (typeof tenantId !== 'string' || tenantId === '') throw new Error('paginate: the filter must scope a tenant (tenant_id)');
  const clauses: Record<string, unknown>[] = [filter];
  if (page.created) clauses.push({ created_at: page.created });

  const param = page.starting_after !== undefined ? 'starting_after' : page.ending_before !== undefined ? 'ending_before' : null;
  const forward = param !== 'ending_before';
  if (param) {
    const id = (param === 'starting_after' ? page.starting_after : page.ending_before)!;
    const cursor = await collection.findOne({ _id: id, tenant_id: tenantId } as Filter<T>, { projection: { _id: 1, created_at: 1 } });
    if (!cursor) throw invalidRequest('resource_missing', `No such ${NOUNS[collection.collectionName] ?? 'object'}: '${id}'`, param);
    // Strictly after the cursor in (created_at desc, _id desc) order for starting_after; strictly before for ending_before.
    const op = forward ? '$lt' : '$gt';
    clauses.push({ $or: [{ created_at: { [op]: cursor.created_at } }, { created_at: cursor.created_at, _id: { [op]: cursor._id } }] });
  }

  const query = (clauses.length === 1 ? clauses[0] : { $and: clauses }) as Filter<T>;
  const dir = forward ? -1 : 1;
  // One extra row tells whether there is more beyond this page.
  const rows = (await collection.find(query).sort({ created_at: dir, _id: dir }).limit(page.limit + 1).toArray()) as T[];
  const has_more = rows.length > page.limit;
  const data = rows.slice(0, page.limit);
  // ending_before walks towards newer items; the page is still returned newest first.
  if (!forward) data.reverse();
  return { data, has_more };
}

/** A list's filter without the parameters the caller left out (every other value is an equality). */
export function definedOnly<T extends object>(filter: T): Partial<T> {
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as Partial<T>;
}
