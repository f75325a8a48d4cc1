// Every list the API serves reads along an index, whatever filters a merchant combines: an index whose keys
// are tenant_id, the list's equality filters (in any order), then the sort keys. The lists and their filters
// are found in the routes themselves: each list route's handler runs against a recording stand-in for
// MongoDB, once per combination of the filters its query schema accepts, and what it asked for is checked
// against platform/mongo.ts. A filter added to a route without its index fails here.

import type { z } from 'zod';
import { allRoutes } from '../../../api/routes';
import type { RouteDef } from '../../../api/http/route';
import { INDEXES, type IndexDefinition } from '../../../platform/mongo';

/** Query parameters every list has (api/http/pagination.ts); the others are the list's filters. */
const PAGING = ['limit', 'starting_after', 'ending_before', 'created'];

interface Read {
  collection: string;
  filter: Record<string, unknown>;
  sort: Record<string, number>;
}

/** A stand-in for `deps.mongo.c` that records what paginate() asks each collection for. */
function recordingCollections(reads: Read[]) {
  const collection = (name: string) => ({
    collectionName: name,
    findOne: async () => ({ _id: 'cursor', created_at: new Date(0) }), // the cursor of starting_after
    find: (filter: Record<string, unknown>) => ({
      sort: (sort: Record<string, number>) => ({
        limit: () => ({
          toArray: async () => {
            reads.push({ collection: name, filter, sort });
            return [];
          },
        }),
      }),
    }),
  });
  return new Proxy({}, { get: (_target, name) => collection(String(name)) });
}

function queryShape(route: RouteDef): Record<string, unknown> {
  return ((route.query as z.ZodObject | undefined)?.shape ?? {}) as Record<string, unknown>;
}

// Merchants' lists only: an admin list (reconciliation's discrepancies) spans tenants, serves a few operators,
// and is indexed for its default order alone (platform/mongo.ts).
const listRoutes = () => allRoutes().filter((r) => r.method === 'get' && r.auth !== 'admin' && 'starting_after' in queryShape(r));

function subsets<T>(items: T[]): T[][] {
  return items.reduce<T[][]>((all, item) => [...all, ...all.map((s) => [...s, item])], [[]]);
}

/** Field names the read matches by value: the filter and its $and clauses, without the cursor ($or) and created_at. */
function equalityFields(filter: Record<string, unknown>): string[] {
  const clauses = Array.isArray(filter.$and) ? (filter.$and as Record<string, unknown>[]) : [filter];
  return clauses.flatMap((c) => Object.keys(c).filter((k) => !k.startsWith('$') && k !== 'created_at'));
}

/** Keys are tenant_id, then exactly the equality fields in any order, then the sort keys in one direction. */
function serves(index: IndexDefinition, read: Read): boolean {
  const keys = Object.entries(index.key);
  const fields = equalityFields(read.filter);
  const head = keys.slice(0, fields.length).map(([k]) => k);
  if (head[0] !== 'tenant_id' || head.length !== fields.length || !fields.every((f) => head.includes(f))) return false;
  const sort = Object.entries(read.sort);
  const tail = keys.slice(fields.length, fields.length + sort.length);
  if (tail.length !== sort.length || tail.some(([k], i) => k !== sort[i]![0])) return false;
  const flip = tail[0]![1] === sort[0]![1] ? 1 : -1; // an index read backwards serves the reverse order
  return tail.every(([, dir], i) => dir === flip * sort[i]![1]!);
}

/** A filter value where any will not do: a refund list's intent given as `pi_...` is read as is (a UUID or integer id is looked up first). */
const SAMPLE_VALUES: Record<string, string> = { payment_intent: 'pi_eu_test' };

/** Each list read (route, filters, paging) that no index in `indexes` serves, named for a failure message. */
async function unservedReads(indexes: readonly IndexDefinition[]): Promise<{ checked: string[]; unserved: string[] }> {
  const checked: string[] = [];
  const unserved: string[] = [];
  for (const route of listRoutes()) {
    const filters = Object.keys(queryShape(route)).filter((k) => !PAGING.includes(k));
    for (const chosen of subsets(filters)) {
      for (const paging of [{}, { starting_after: 'cursor' }, { created: { $gte: new Date(0) } }]) {
        const reads: Read[] = [];
        const query = { limit: 10, ...paging, ...Object.fromEntries(chosen.map((f) => [f, SAMPLE_VALUES[f] ?? 'x'])) };
        await route.handler({
          params: {},
          query,
          body: undefined,
          auth: { tenantId: 'ten_eu_test', region: 'eu', keyKind: 'secret', claims: [] },
          deps: { mongo: { c: recordingCollections(reads) } } as never,
          ctx: {} as never,
          version: { requested: null, served: null },
        });
        for (const read of reads) {
          const name = `${route.path} ${read.collection} [${equalityFields(read.filter).join(', ')}] ${Object.keys(paging).join('') || 'first page'}`;
          checked.push(name);
          if (!indexes.some((index) => index.collection === read.collection && serves(index, read))) unserved.push(name);
        }
      }
    }
  }
  return { checked, unserved };
}

test('every combination of every list filter, on every page, reads along an index with the tenant and the sort order', async () => {
  const { checked, unserved } = await unservedReads(INDEXES);

  // The routes were found and read: payment intents, refunds, customers, events, each with its filters.
  for (const list of ['paymentIntents [tenant_id, status, customer, currency]', 'refunds [tenant_id, payment_intent, status, currency]', 'customers [tenant_id, deleted_at, reference, email]', 'events [tenant_id, type]'])
    expect(checked.some((name) => name.includes(list))).toBe(true);
  expect(unserved).toEqual([]);
});

test('a list filter without its index is caught', async () => {
  const withoutStatus = INDEXES.filter((i) => !(i.collection === 'paymentIntents' && Object.keys(i.key).join() === 'tenant_id,status,created_at,_id'));

  const { unserved } = await unservedReads(withoutStatus);

  expect(unserved).toContain('/payment-intents paymentIntents [tenant_id, status] first page');
});
