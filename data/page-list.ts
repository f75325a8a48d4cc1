import type { Collection, Document, Filter, SortDirection, WithId } from 'mongodb';
import { buildEnvelope, type FilterClause, type PageEnvelope, type PageListSpec, type PageQuery } from '../domain/page-query';

// The one reader of the page-numbered lists (payouts, payout recipients, the older payment intents and
// refunds): the clauses of domain/page-query.ts as MongoDB, count + find/sort/skip/limit.
//
// Every operator and pattern below is ours: a clause carries only typed scalars (string, number, boolean,
// Date), each placed where an operator expects a value ($eq, $in, $gt, ...), never as a key or an operator
// object, and text matching escapes every regular-expression character. So `{"$ne":null}`, `$where`, `.*`
// or `a|b` typed by a client match those characters and nothing else.
//
// FerretDB 1.24 (SQLite) runs each construct used here: $eq/$ne, $in/$nin, $gt..$lte, $not with an
// operator expression, $regex with $options 'i', $all, $and, countDocuments, sort on several fields with
// skip; test/integration/page-list.test.ts proves each against it.

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The clauses with the string values they give for `properties` as the store keeps them. */
function asStored(q: PageQuery, properties: readonly string[], stored: (v: string) => string): PageQuery {
  return { ...q, filters: q.filters.map((c) => (properties.includes(c.property) ? { ...c, values: c.values.map((v) => (typeof v === 'string' ? stored(v) : v)) } : c)) };
}

/**
 * The clauses of a page-numbered list with the whole UUIDs they give for `properties` lowercased: those ids are
 * stored in lower case, and paths and bodies take them in any case, so filters do too (as GET
 * /payment-intents's `payment_intent` does).
 */
export const uuidsInAnyCase = (q: PageQuery, properties: readonly string[]): PageQuery => asStored(q, properties, (v) => (UUID_RE.test(v) ? v.toLowerCase() : v));

/**
 * The clauses of a page-numbered list with the values they give for `properties` upper-cased: currency codes are
 * stored in upper case (every create's currencySchema upper-cases what it takes), and creates take them in any
 * case, so filters do too, in every operator form ($eq, $in, $not:..., and the rest).
 */
export const currenciesInAnyCase = (q: PageQuery, properties: readonly string[]): PageQuery => asStored(q, properties, (v) => v.toUpperCase());

/** `text` matching itself and nothing else inside a regular expression (PCRE for MongoDB, RE2 for FerretDB). */
export function escapeRegex(text: string): string {
  // NUL is written as an escape: MongoDB refuses a pattern with an embedded NUL byte.
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&').replaceAll('\u0000', '\\x00');
}

/** The condition on the field a clause names, before any `$not`. */
function positive(c: FilterClause): Record<string, unknown> {
  const [a, b] = c.values;
  switch (c.op) {
    case '$eq':
      return { $eq: a };
    case '$null':
      return { $eq: null };
    case '$in':
      return { $in: c.values };
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { [c.op]: a };
    case '$btw':
      // Inclusive at both ends, as SQL BETWEEN (nestjs-paginate); bounds the wrong way round match nothing.
      return { $gte: a, $lte: b };
    case '$ilike':
      return { $regex: escapeRegex(String(a)), $options: 'i' };
    case '$sw':
      return { $regex: `^${escapeRegex(String(a))}`, $options: 'i' };
    case '$contains':
      // A string array contains every value given; a string contains the value, case-sensitively (the
      // difference from $ilike: nestjs-paginate has $contains for arrays only, and a case-sensitive
      // substring is the reading of "contains" that $ilike does not already give).
      return c.type === 'string[]' ? { $all: c.values } : { $regex: escapeRegex(String(a)) };
  }
}

/**
 * `$not` is the complement: a negated clause matches exactly the rows the clause does not, rows without the
 * field included (`$not:$eq:x` matches a row with no value; `$not:$null` is "present and not null").
 */
function condition(c: FilterClause): Record<string, unknown> {
  if (!c.negate) return { [c.column]: positive(c) };
  if (c.op === '$eq') return { [c.column]: { $ne: c.values[0] } };
  if (c.op === '$null') return { [c.column]: { $ne: null } };
  if (c.op === '$in') return { [c.column]: { $nin: c.values } };
  return { [c.column]: { $not: positive(c) } };
}

/** The clauses as one MongoDB filter, ANDed (two clauses on one field stay two conditions). Exported for tests. */
export function toMongoFilter(clauses: FilterClause[]): Record<string, unknown> {
  if (clauses.length === 0) return {};
  if (clauses.length === 1) return condition(clauses[0]!);
  return { $and: clauses.map(condition) };
}

/** The sort of `q` in stored fields, then `_id` the way the last column goes: one total order, so pages never overlap or skip. */
function sortOf(q: PageQuery, spec: PageListSpec): Map<string, SortDirection> {
  const sort = new Map<string, SortDirection>();
  for (const [column, dir] of q.sortBy) {
    const field = Object.hasOwn(spec.sortable, column) ? spec.sortable[column] : undefined;
    if (field === undefined) throw new Error(`pageList: '${column}' is not a sortable column of this list (a query parsed with another spec?)`);
    sort.set(field, dir === 'ASC' ? 1 : -1);
  }
  const last = q.sortBy.length > 0 ? q.sortBy[q.sortBy.length - 1]![1] : 'ASC';
  if (!sort.has('_id')) sort.set('_id', last === 'ASC' ? 1 : -1);
  return sort;
}

/**
 * One page of `collection`: the rows in `scope` (which must scope the tenant: a non-empty `tenant_id`)
 * matching the query's filters, in its sort, with the count and links of the envelope. `path` is the list's
 * path, which the links start with. A page past the end is empty, and costs no find.
 */
export async function pageList<T extends Document>(
  collection: Collection<T>,
  scope: Record<string, unknown>,
  q: PageQuery,
  path: string,
  spec: PageListSpec,
): Promise<PageEnvelope<WithId<T>>> {
  const tenantId = scope.tenant_id;
  if (typeof tenantId !== 'string' || tenantId === '') throw new Error('pageList: the scope must name a tenant (tenant_id)');
  const filter = (q.filters.length === 0 ? scope : { $and: [scope, toMongoFilter(q.filters)] }) as Filter<T>;
  const totalItems = await collection.countDocuments(filter);
  const skip = (q.page - 1) * q.limit;
  const data = skip >= totalItems ? [] : await collection.find(filter).sort(sortOf(q, spec)).skip(skip).limit(q.limit).toArray();
  return buildEnvelope(data, totalItems, q, path);
}
