import { randomUUID } from 'node:crypto';
import type { Collection, MongoClient } from 'mongodb';
import { parseQuery } from '../../api/http/query';
import { escapeRegex, pageList, toMongoFilter } from '../../data/page-list';
import { pageQueryString, parsePageQuery, type PageListSpec, type PageQuery } from '../../domain/page-query';
import { mongo } from './harness';

// The page-numbered list language against the stack's FerretDB: every operator and its $not return exactly
// the rows they describe, in one tenant only; every sort walks the pages without overlap or gap; and text a
// client types matches itself, never a pattern or an operator. Its own scratch collection, dropped after.

interface Row {
  _id: string;
  tenant_id: string;
  seq: number;
  status: string;
  name?: string | null;
  amount?: number | null;
  created_at?: Date | null;
  live?: boolean | null;
  tags?: string[] | null;
}

const A = `ten_eu_pl_a_${randomUUID().slice(0, 8)}`;
const B = `ten_eu_pl_b_${randomUUID().slice(0, 8)}`;

const SPEC: PageListSpec = {
  filterable: {
    id: { type: 'integer', column: 'seq' },
    uuid: { type: 'string', column: '_id' },
    name: { type: 'string' },
    status: { type: 'string' },
    amount: { type: 'integer' },
    created_at: { type: 'date' },
    live: { type: 'boolean' },
    tags: { type: 'string[]' },
  },
  sortable: { id: 'seq', uuid: '_id', name: 'name', amount: 'amount', created_at: 'created_at', live: 'live' },
  defaultSort: ['id', 'ASC'],
};

const NAMES: Array<string | null | undefined> = [
  'Alpha', 'alphabet', 'ALPHA soup', 'beta', 'Beta.max', 'betamax', 'a|b', 'a.b', 'axb', '.*',
  '^caret', 'nul\u0000byte', 'back\\slash', 'back/slash', '$where', '{"$ne":null}', 'price (usd)', 'x+y', 'xxy', 'Ünïcödé',
  'ünïcödé lower', 'gamma', 'gamma', 'gamma', '', 'a,b', 'delta:1', null, undefined, 'zeta',
];
const TAGS: Array<string[]> = [['red', 'blue'], ['red'], ['blue', 'green'], [], ['Red Wine']];
const BIG = 2 ** 40;

/** Thirty rows of tenant A: ties in every sortable column, nulls and missing fields in each type. */
function rowsOf(tenant: string, prefix: string): Row[] {
  return NAMES.map((name, i) => {
    const row: Row = { _id: `${prefix}_${String(i).padStart(2, '0')}`, tenant_id: tenant, seq: i + 1, status: ['pending', 'success', 'canceled'][i % 3]! };
    if (name !== undefined) row.name = name;
    if (i !== 28) row.amount = i === 27 ? null : i === 29 ? BIG : (i % 7) * 100;
    if (i !== 25) row.created_at = i === 26 ? null : new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 3), 10));
    if (i !== 24) row.live = i === 23 ? null : i % 2 === 0;
    if (i !== 21) row.tags = i === 22 ? null : TAGS[i % 5]!;
    return row;
  });
}

const rowsA = rowsOf(A, 'a');
// Tenant B holds the same values, so every filter that matches a row of A would match one of B.
const rowsB = rowsOf(B, 'b');

let client: MongoClient;
let col: Collection<Row>;
const collectionName = `scratch_page_list_${randomUUID().replace(/-/g, '')}`;

beforeAll(async () => {
  client = await mongo();
  col = client.db().collection<Row>(collectionName);
  await col.insertMany([...rowsA, ...rowsB]);
});
afterAll(async () => {
  await col?.drop().catch(() => undefined);
  await client?.close();
});

const queryOf = (qs: string): PageQuery => parsePageQuery(parseQuery(new URLSearchParams(qs)), SPEC);

async function list(qs: string, tenant = A) {
  const env = await pageList(col, { tenant_id: tenant }, queryOf(qs), '/things', SPEC);
  for (const row of env.data) expect(row.tenant_id).toBe(tenant);
  return env;
}

/** The `seq` of every row of A a filter returns, in seq order. */
async function matched(filter: string): Promise<number[]> {
  const env = await list(`limit=1000&sortBy=id:ASC&${filter}`);
  expect(env.meta.totalItems).toBe(env.data.length);
  return env.data.map((r) => r.seq);
}

const seqs = (pred: (r: Row) => boolean) => rowsA.filter(pred).map((r) => r.seq);

const isNull = (v: unknown) => v === null || v === undefined;
const str = (r: Row): string | null => (typeof r.name === 'string' ? r.name : null);
const num = (r: Row): number | null => (typeof r.amount === 'number' ? r.amount : null);
const time = (r: Row): number | null => (r.created_at instanceof Date ? r.created_at.getTime() : null);
const day = (d: number, h = 10) => Date.UTC(2026, 0, d, h);
const tags = (r: Row): string[] => (Array.isArray(r.tags) ? r.tags : []);

// [property, clause, the rows it describes]. Each runs as written and with `$not:` before it, which must
// return exactly the other rows of the tenant.
const CASES: Array<[string, string, (r: Row) => boolean]> = [
  // strings
  ['name', '$eq:gamma', (r) => r.name === 'gamma'],
  ['name', 'beta', (r) => r.name === 'beta'],
  ['name', '$eq:', (r) => r.name === ''],
  ['name', '$eq:a,b', (r) => r.name === 'a,b'],
  ['name', '$eq:delta:1', (r) => r.name === 'delta:1'],
  ['name', '$null', (r) => isNull(r.name)],
  ['name', '$in:beta,gamma,zeta,nope', (r) => ['beta', 'gamma', 'zeta'].includes(r.name as string)],
  ['name', '$gt:gamma', (r) => str(r) !== null && str(r)! > 'gamma'],
  ['name', '$gte:gamma', (r) => str(r) !== null && str(r)! >= 'gamma'],
  ['name', '$lt:beta', (r) => str(r) !== null && str(r)! < 'beta'],
  ['name', '$lte:beta', (r) => str(r) !== null && str(r)! <= 'beta'],
  ['name', '$btw:b,gamma', (r) => str(r) !== null && str(r)! >= 'b' && str(r)! <= 'gamma'],
  ['name', '$btw:gamma,b', () => false],
  ['name', '$ilike:ALPHA', (r) => !!str(r)?.toLowerCase().includes('alpha')],
  ['name', '$ilike:ünï', (r) => !!str(r)?.toLowerCase().includes('ünï')],
  ['name', '$ilike:', (r) => str(r) !== null],
  ['name', '$sw:beta', (r) => !!str(r)?.toLowerCase().startsWith('beta')],
  ['name', '$sw:ALP', (r) => !!str(r)?.toLowerCase().startsWith('alp')],
  ['name', '$contains:eta', (r) => !!str(r)?.includes('eta')],
  ['name', '$contains:Beta', (r) => !!str(r)?.includes('Beta')],
  // integers
  ['amount', '$eq:300', (r) => r.amount === 300],
  ['amount', '$eq:1099511627776', (r) => r.amount === BIG],
  ['amount', '$gt:300', (r) => num(r) !== null && num(r)! > 300],
  ['amount', '$gte:300', (r) => num(r) !== null && num(r)! >= 300],
  ['amount', '$lt:300', (r) => num(r) !== null && num(r)! < 300],
  ['amount', '$lte:300', (r) => num(r) !== null && num(r)! <= 300],
  ['amount', '$btw:200,400', (r) => num(r) !== null && num(r)! >= 200 && num(r)! <= 400],
  ['amount', '$in:0,600,7', (r) => r.amount === 0 || r.amount === 600],
  ['amount', '$gt:1000000', (r) => r.amount === BIG],
  ['amount', '$null', (r) => isNull(r.amount)],
  ['id', '$btw:5,9', (r) => r.seq >= 5 && r.seq <= 9],
  // dates: instants, as nestjs-paginate compares them; a date alone is its midnight UTC
  ['created_at', '$eq:2026-01-03T10:00:00Z', (r) => time(r) === day(3)],
  ['created_at', '$eq:2026-01-03', () => false],
  ['created_at', '$gt:2026-01-05T10:00:00Z', (r) => time(r) !== null && time(r)! > day(5)],
  ['created_at', '$gte:2026-01-05T11:00:00%2B01:00', (r) => time(r) !== null && time(r)! >= day(5)],
  ['created_at', '$lt:2026-01-03', (r) => time(r) !== null && time(r)! < day(3, 0)],
  ['created_at', '$lte:2026-01-03T10:00', (r) => time(r) !== null && time(r)! <= day(3)],
  ['created_at', '$btw:2026-01-02,2026-01-04T10:00:00.000Z', (r) => time(r) !== null && time(r)! >= day(2, 0) && time(r)! <= day(4)],
  ['created_at', '$in:2026-01-01T10:00:00Z,2026-01-10T10:00:00Z', (r) => time(r) === day(1) || time(r) === day(10)],
  ['created_at', '$null', (r) => isNull(r.created_at)],
  // booleans
  ['live', '$eq:true', (r) => r.live === true],
  ['live', 'false', (r) => r.live === false],
  ['live', '$in:true,false', (r) => typeof r.live === 'boolean'],
  ['live', '$null', (r) => isNull(r.live)],
  // string arrays
  ['tags', '$eq:red', (r) => tags(r).includes('red')],
  ['tags', '$in:green,Red Wine', (r) => tags(r).some((t) => ['green', 'Red Wine'].includes(t))],
  ['tags', '$contains:red,blue', (r) => tags(r).includes('red') && tags(r).includes('blue')],
  ['tags', '$contains:red', (r) => tags(r).includes('red')],
  ['tags', '$ilike:RED', (r) => tags(r).some((t) => t.toLowerCase().includes('red'))],
  ['tags', '$sw:bl', (r) => tags(r).some((t) => t.toLowerCase().startsWith('bl'))],
  ['tags', '$null', (r) => isNull(r.tags)],
  // the stored _id, under its public name
  ['uuid', '$in:a_03,a_04,b_05', (r) => ['a_03', 'a_04'].includes(r._id)],
  ['uuid', '$sw:A_0', (r) => r._id.startsWith('a_0')],
];

describe('every operator returns exactly its rows, and $not exactly the others', () => {
  test.each(CASES)('filter.%s=%s', async (property, clause, pred) => {
    const expected = seqs(pred);
    expect(await matched(`filter.${property}=${clause}`)).toEqual(expected);
    expect(await matched(`filter.${property}=$not:${clause}`)).toEqual(seqs((r) => !pred(r)));
  });

  test('the cases cover every operator on every type it applies to', () => {
    const covered = new Set(CASES.map(([p, c]) => `${SPEC.filterable[p]!.type} ${c.startsWith('$') ? c.split(':')[0] : '$eq'}`));
    const expected = [
      ...['$eq', '$null', '$in', '$gt', '$gte', '$lt', '$lte', '$btw', '$ilike', '$sw', '$contains'].map((op) => `string ${op}`),
      ...['$eq', '$null', '$in', '$gt', '$gte', '$lt', '$lte', '$btw'].flatMap((op) => [`integer ${op}`, `date ${op}`]),
      ...['$eq', '$null', '$in'].map((op) => `boolean ${op}`),
      ...['$eq', '$null', '$in', '$ilike', '$sw', '$contains'].map((op) => `string[] ${op}`),
    ];
    expect(expected.filter((c) => !covered.has(c))).toEqual([]);
  });

  test('$null is null or missing; $not:$null is present and not null (an empty array is present)', async () => {
    expect(await matched('filter.amount=$null')).toEqual([28, 29]);
    expect(await matched('filter.tags=$null')).toEqual([22, 23]);
    expect(await matched('filter.tags=$not:$null')).toContain(4); // tags: []
  });

  test('clauses AND together, on one property and across properties', async () => {
    expect(await matched('filter.amount=$gte:100&filter.amount=$lte:300&filter.status=success')).toEqual(
      seqs((r) => num(r) !== null && num(r)! >= 100 && num(r)! <= 300 && r.status === 'success'),
    );
    expect(await matched('filter.name=$ilike:a&filter.name=$not:$ilike:alpha&filter.live=true')).toEqual(
      seqs((r) => !!str(r)?.toLowerCase().includes('a') && !str(r)!.toLowerCase().includes('alpha') && r.live === true),
    );
    expect(await matched('filter.amount=$gt:300&filter.amount=$lt:300')).toEqual([]);
  });
});

describe('text a client types matches itself, never a pattern or an operator', () => {
  const nameOf = (seq: number) => rowsA[seq - 1]!.name;
  test.each<[string, Array<string | null | undefined>]>([
    ['$ilike:.*', ['.*']],
    ['$eq:.*', ['.*']],
    ['$sw:.', ['.*']],
    ['$sw:^', ['^caret']],
    ['$ilike:a.b', ['a.b']],
    ['$ilike:a|b', ['a|b']],
    ['$contains:x%2By', ['x+y']],
    ['$ilike:(usd)', ['price (usd)']],
    ['$sw:[a-z]', []],
    ['$ilike:%', []],
    ['$ilike:%5C', ['back\\slash']],
    ['$contains:%5Cs', ['back\\slash']],
    ['$ilike:back%5C', ['back\\slash']],
    ['$ilike:%00', ['nul\u0000byte']],
    ['$eq:nul%00byte', ['nul\u0000byte']],
    ['$eq:$where', ['$where']],
    ['$ilike:$where', ['$where']],
    ['$sw:$', ['$where']],
    ['$in:$where,$gt', ['$where']],
    [encodeURIComponent('{"$ne":null}'), ['{"$ne":null}']],
    [`$in:${encodeURIComponent('{"$ne":null}')},${encodeURIComponent('{"$gt":""}')}`, ['{"$ne":null}']],
    [`$ilike:${encodeURIComponent('"$ne"')}`, ['{"$ne":null}']],
    [encodeURIComponent('{"$gt":""}'), []],
  ])('filter.name=%s', async (clause, names) => {
    expect((await matched(`filter.name=${clause}`)).map(nameOf)).toEqual(names);
  });

  test('a `$where` in the operator place is a 400, not a query', () => {
    expect(() => queryOf('filter.name=$where')).toThrow(/Unknown operator/);
  });

  test('the filter sent to the database holds only our operators, and every pattern escaped', () => {
    const q = queryOf(
      `filter.name=$ilike:${encodeURIComponent('.*')}&filter.name=$not:$sw:${encodeURIComponent('^a|b\\')}&filter.name=$contains:$where` +
        `&filter.name=${encodeURIComponent('{"$ne":null}')}&filter.name=$not:$in:$gt,$where&filter.tags=$not:$contains:$all,$x&filter.amount=$not:$btw:1,2`,
    );
    const ours = new Set(['$and', '$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$not', '$regex', '$options', '$all']);
    const patterns: string[] = [];
    const walk = (v: unknown): void => {
      if (v === null || ['string', 'number', 'boolean'].includes(typeof v) || v instanceof Date) return;
      if (Array.isArray(v)) return v.forEach(walk);
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
      for (const [k, inner] of Object.entries(v as Record<string, unknown>)) {
        if (k.startsWith('$')) expect(ours.has(k)).toBe(true);
        else expect(Object.values(SPEC.filterable).map((f) => f.column).concat(Object.keys(SPEC.filterable))).toContain(k);
        if (k === '$regex') patterns.push(inner as string);
        walk(inner);
      }
    };
    walk(toMongoFilter(q.filters));
    expect(patterns).toEqual([escapeRegex('.*'), `^${escapeRegex('^a|b\\')}`, escapeRegex('$where')]);
    expect(escapeRegex('.*^$|\\()[]{}+?/-')).toBe('\\.\\*\\^\\$\\|\\\\\\(\\)\\[\\]\\{\\}\\+\\?\\/\\-');
  });
});

describe('one tenant only', () => {
  test('the other tenant holds the same values and never appears; its own list is its own rows', async () => {
    const a = await list('limit=1000');
    expect(a.data.map((r) => r._id)).toEqual(rowsA.map((r) => r._id));
    const b = await list('limit=1000', B);
    expect(b.data.map((r) => r._id)).toEqual(rowsB.map((r) => r._id));
    expect(await matched('filter.uuid=$in:b_00,b_01,b_02')).toEqual([]);
    expect(await matched('filter.uuid=$sw:b_')).toEqual([]);
    expect((await list('limit=1000&filter.uuid=$not:$sw:a_')).meta.totalItems).toBe(0);
  });

  test('a scope without a tenant is a programming error, not an unscoped read', async () => {
    const q = queryOf('');
    for (const scope of [{}, { tenant_id: '' }, { tenant_id: { $ne: null } }, { tenant_id: null }])
      await expect(pageList(col, scope, q, '/things', SPEC)).rejects.toThrow(/tenant/);
  });
});

/** Mongo's order for one column: null and missing first, then the values; `_id` breaks ties. */
function compare(a: unknown, b: unknown): number {
  if (isNull(a) || isNull(b)) return (isNull(a) ? 0 : 1) - (isNull(b) ? 0 : 1);
  const [x, y] = a instanceof Date ? [a.getTime(), (b as Date).getTime()] : [a as number | string | boolean, b as number | string | boolean];
  return x < y ? -1 : x > y ? 1 : 0;
}

function expectedOrder(sort: Array<[keyof Row, 1 | -1]>): string[] {
  const last = sort[sort.length - 1]![1];
  return [...rowsA]
    .sort((r, s) => {
      for (const [field, dir] of sort) {
        const c = compare(r[field], s[field]);
        if (c !== 0) return c * dir;
      }
      return compare(r._id, s._id) * last;
    })
    .map((r) => r._id);
}

/** Every page of a list in order, following `next` until it is null. */
async function walk(qs: string) {
  const pages = [];
  let page = 1;
  for (;;) {
    const env = await list(`${qs}&page=${page}`);
    pages.push(env);
    if (env.links.next === null) break;
    expect(env.links.next).toBe(`/things${pageQueryString(queryOf(qs), page + 1)}`);
    page += 1;
  }
  return pages;
}

describe('sorting is one total order, so pages never overlap or skip', () => {
  const SORTS: Array<[string, Array<[keyof Row, 1 | -1]>]> = [
    ['id:ASC', [['seq', 1]]],
    ['id:DESC', [['seq', -1]]],
    ['uuid:DESC', [['_id', -1]]],
    ['name:ASC', [['name', 1]]],
    ['name:DESC', [['name', -1]]],
    ['amount:ASC', [['amount', 1]]],
    ['amount:DESC', [['amount', -1]]],
    ['created_at:ASC', [['created_at', 1]]],
    ['created_at:DESC', [['created_at', -1]]],
    ['live:ASC', [['live', 1]]],
    ['live:DESC', [['live', -1]]],
    ['live:ASC&sortBy=amount:DESC', [['live', 1], ['amount', -1]]],
    ['created_at:DESC&sortBy=name:ASC', [['created_at', -1], ['name', 1]]],
  ];

  test.each(SORTS)('sortBy=%s, 7 a page', async (sortBy, sort) => {
    const pages = await walk(`limit=7&sortBy=${sortBy}`);
    expect(pages.map((p) => p.data.length)).toEqual([7, 7, 7, 7, 2]);
    expect(pages.flatMap((p) => p.data.map((r) => r._id))).toEqual(expectedOrder(sort));
    expect(pages[0]!.meta.sortBy).toEqual(sortBy.split('&sortBy=').map((s) => s.split(':')));
  });

  test('without sortBy, the default sort', async () => {
    const env = await list('limit=5');
    expect(env.meta.sortBy).toEqual([['id', 'ASC']]);
    expect(env.data.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('pagination edges', () => {
  test('an empty result: no rows, no pages, links to page 1', async () => {
    const env = await list('limit=10&filter.name=$eq:nothing-matches');
    expect(env).toEqual({
      data: [],
      meta: { itemsPerPage: 10, totalItems: 0, currentPage: 1, totalPages: 0, sortBy: [['id', 'ASC']] },
      links: {
        first: '/things?page=1&limit=10&sortBy=id:ASC&filter.name=$eq:nothing-matches',
        previous: null,
        current: '/things?page=1&limit=10&sortBy=id:ASC&filter.name=$eq:nothing-matches',
        next: null,
        last: '/things?page=1&limit=10&sortBy=id:ASC&filter.name=$eq:nothing-matches',
      },
    });
  });

  test('the last, partial page', async () => {
    const env = await list('limit=7&page=5');
    expect(env.data.map((r) => r.seq)).toEqual([29, 30]);
    expect(env.meta).toMatchObject({ itemsPerPage: 7, totalItems: 30, currentPage: 5, totalPages: 5 });
    expect(env.links).toMatchObject({ previous: '/things?page=4&limit=7&sortBy=id:ASC', next: null, last: '/things?page=5&limit=7&sortBy=id:ASC' });
  });

  test('a page past the end is empty, its links pointing back at real pages', async () => {
    const env = await list('limit=7&page=6');
    expect(env.data).toEqual([]);
    expect(env.meta).toMatchObject({ totalItems: 30, currentPage: 6, totalPages: 5 });
    expect(env.links).toMatchObject({ previous: '/things?page=5&limit=7&sortBy=id:ASC', next: null, last: '/things?page=5&limit=7&sortBy=id:ASC' });
    const far = await list(`limit=1000&page=${Number.MAX_SAFE_INTEGER}`);
    expect(far.data).toEqual([]);
    expect(far.links.previous).toBe('/things?page=1&limit=1000&sortBy=id:ASC');
  });

  test('one page holding everything', async () => {
    const env = await list('limit=30');
    expect(env.data).toHaveLength(30);
    expect(env.meta.totalPages).toBe(1);
    expect(env.links).toMatchObject({ previous: null, next: null });
  });

  test('a filtered list counts and pages the filtered rows only', async () => {
    const expected = seqs((r) => r.status === 'success');
    const pages = await walk('limit=4&filter.status=success');
    expect(pages.flatMap((p) => p.data.map((r) => r.seq))).toEqual(expected);
    expect(pages[0]!.meta).toMatchObject({ totalItems: expected.length, totalPages: Math.ceil(expected.length / 4) });
  });
});
