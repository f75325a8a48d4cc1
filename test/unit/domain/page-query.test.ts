import { z } from 'zod';
import { parseQuery } from '../../../api/http/query';
import { route } from '../../../api/http/route';
import { parseOrThrow } from '../../../api/http/validate';
import { buildOpenApi } from '../../../api/openapi/routes';
import { DomainError } from '../../../domain/errors';
import {
  buildEnvelope,
  MAX_FILTER_CLAUSES,
  MAX_LIST_VALUES,
  pageEnvelopeSchema,
  pageQuerySchema,
  pageQueryString,
  filterInstant,
  parsePageQuery,
  type PageListSpec,
  type PageQuery,
} from '../../../domain/page-query';

const SPEC: PageListSpec = {
  filterable: {
    status: { type: 'string' },
    name: { type: 'string' },
    amount: { type: 'integer' },
    created_at: { type: 'date' },
    live: { type: 'boolean' },
    tags: { type: 'string[]' },
    uuid: { type: 'string', column: '_id', description: "The payout's UUID." },
  },
  sortable: { id: 'seq', created_at: 'created_at', amount: 'amount', uuid: '_id' },
  defaultSort: ['created_at', 'DESC'],
};

/** The query string as the API parses it (api/http/query.ts), then the page query. */
const parse = (qs: string) => parsePageQuery(parseQuery(new URLSearchParams(qs)), SPEC);

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('the query was accepted');
}
const refused = (qs: string) => refusal(() => parse(qs));

/** The one clause of a query with one filter, without the fields every clause has. */
function clause(qs: string) {
  const { filters } = parse(qs);
  expect(filters).toHaveLength(1);
  const { negate, op, values } = filters[0]!;
  return { negate, op, values };
}

describe('limit and page', () => {
  test('a query with nothing in it is page 1 of 50, in the default sort, unfiltered', () => {
    expect(parsePageQuery({}, SPEC)).toEqual({ limit: 50, page: 1, sortBy: [['created_at', 'DESC']], filters: [] });
  });

  test.each([
    ['1', 1],
    ['1000', 1000],
    ['007', 7],
  ])('limit=%s is %d', (limit, n) => expect(parse(`limit=${limit}`).limit).toBe(n));

  test.each(['0', '1001', '-1', '1.5', 'abc', '', '1e3', ' 5', '99999999999999999999'])('limit=%j is a 400 naming limit', (limit) => {
    expect(refused(`limit=${encodeURIComponent(limit)}`)).toMatchObject({ kind: 'invalid_request', code: 'parameter_invalid', param: 'limit', message: 'Must be an integer from 1 to 1000' });
  });

  test('a repeated limit is a 400 naming limit', () => {
    expect(refused('limit=5&limit=6')).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  test.each([
    ['1', 1],
    ['42', 42],
  ])('page=%s is %d', (page, n) => expect(parse(`page=${page}`).page).toBe(n));

  test.each(['0', '-2', 'x', '2.0', '9007199254740993'])('page=%j is a 400 naming page', (page) => {
    expect(refused(`page=${page}`)).toMatchObject({ code: 'parameter_invalid', param: 'page' });
  });
});

describe('sortBy', () => {
  test('one column and direction', () => expect(parse('sortBy=amount:ASC').sortBy).toEqual([['amount', 'ASC']]));

  test('repeated, the columns sort in the order given', () => {
    expect(parse('sortBy=amount:DESC&sortBy=id:ASC').sortBy).toEqual([
      ['amount', 'DESC'],
      ['id', 'ASC'],
    ]);
  });

  test.each(['amount:asc', 'amount:UP', 'amount', 'amount:', 'amount:ASC:DESC'])('%j: the direction must be ASC or DESC', (s) => {
    const err = refused(`sortBy=${s}`);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'sortBy' });
  });

  test.each(['status:ASC', 'constructor:ASC', '__proto__:DESC', 'toString:ASC', ':ASC'])('%j: only the sortable columns, named in the refusal', (s) => {
    const err = refused(`sortBy=${s}`);
    expect(err).toMatchObject({ code: 'parameter_invalid', param: 'sortBy' });
    expect(err.message).toContain('sortable: id, created_at, amount, uuid');
  });

  test('a column sorted twice is refused, even in the same direction', () => {
    expect(refused('sortBy=amount:ASC&sortBy=amount:ASC')).toMatchObject({ param: 'sortBy', message: "'amount' is sorted by more than once" });
    expect(refused('sortBy=amount:ASC&sortBy=amount:DESC')).toMatchObject({ param: 'sortBy' });
  });

  test('a sortBy in the bracket form is refused', () => {
    expect(refused('sortBy[amount]=ASC')).toMatchObject({ param: 'sortBy' });
  });
});

describe('filter operators, on the types they apply to', () => {
  const at = (iso: string) => new Date(iso);

  test.each<[string, { op: string; values: unknown[] }]>([
    ['filter.status=$eq:success', { op: '$eq', values: ['success'] }],
    ['filter.status=success', { op: '$eq', values: ['success'] }],
    ['filter.status=', { op: '$eq', values: [''] }],
    ['filter.status=$eq:', { op: '$eq', values: [''] }],
    ['filter.status=$null', { op: '$null', values: [] }],
    ['filter.status=$in:pending,success', { op: '$in', values: ['pending', 'success'] }],
    ['filter.status=$in:solo', { op: '$in', values: ['solo'] }],
    ['filter.name=$gt:m', { op: '$gt', values: ['m'] }],
    ['filter.name=$btw:a,m', { op: '$btw', values: ['a', 'm'] }],
    ['filter.name=$ilike:Shop', { op: '$ilike', values: ['Shop'] }],
    ['filter.name=$ilike:a,b', { op: '$ilike', values: ['a,b'] }],
    ['filter.name=$sw:Sh', { op: '$sw', values: ['Sh'] }],
    ['filter.name=$contains:hop', { op: '$contains', values: ['hop'] }],
    ['filter.name=$contains:a,b', { op: '$contains', values: ['a,b'] }],
    ['filter.amount=$eq:100', { op: '$eq', values: [100] }],
    ['filter.amount=-5', { op: '$eq', values: [-5] }],
    ['filter.amount=$gt:100', { op: '$gt', values: [100] }],
    ['filter.amount=$gte:100', { op: '$gte', values: [100] }],
    ['filter.amount=$lt:100', { op: '$lt', values: [100] }],
    ['filter.amount=$lte:100', { op: '$lte', values: [100] }],
    ['filter.amount=$btw:100,500', { op: '$btw', values: [100, 500] }],
    ['filter.amount=$in:1,2,3', { op: '$in', values: [1, 2, 3] }],
    ['filter.amount=$eq:9007199254740991', { op: '$eq', values: [9007199254740991] }],
    ['filter.amount=$null', { op: '$null', values: [] }],
    ['filter.created_at=$gte:2026-01-01', { op: '$gte', values: [at('2026-01-01T00:00:00Z')] }],
    ['filter.created_at=$lt:2026-01-01T10:30:00Z', { op: '$lt', values: [at('2026-01-01T10:30:00Z')] }],
    ['filter.created_at=2026-01-01T10:30:00.123Z', { op: '$eq', values: [at('2026-01-01T10:30:00.123Z')] }],
    ['filter.created_at=$btw:2026-01-01,2026-02-01T00:00:00%2B01:00', { op: '$btw', values: [at('2026-01-01T00:00:00Z'), at('2026-01-31T23:00:00Z')] }],
    ['filter.created_at=$in:2026-01-01,2026-01-02', { op: '$in', values: [at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z')] }],
    ['filter.live=$eq:true', { op: '$eq', values: [true] }],
    ['filter.live=false', { op: '$eq', values: [false] }],
    ['filter.live=$in:true,false', { op: '$in', values: [true, false] }],
    ['filter.live=$null', { op: '$null', values: [] }],
    ['filter.tags=$eq:red', { op: '$eq', values: ['red'] }],
    ['filter.tags=$in:red,blue', { op: '$in', values: ['red', 'blue'] }],
    ['filter.tags=$contains:red,blue', { op: '$contains', values: ['red', 'blue'] }],
    ['filter.tags=$ilike:RE', { op: '$ilike', values: ['RE'] }],
    ['filter.tags=$sw:r', { op: '$sw', values: ['r'] }],
    ['filter.tags=$null', { op: '$null', values: [] }],
  ])('%s', (qs, expected) => {
    expect(clause(qs)).toEqual({ negate: false, ...expected });
  });

  test.each([
    ['$eq:v', '$eq', ['v']],
    ['v', '$eq', ['v']],
    ['$null', '$null', []],
    ['$in:a,b', '$in', ['a', 'b']],
    ['$gt:m', '$gt', ['m']],
    ['$gte:m', '$gte', ['m']],
    ['$lt:m', '$lt', ['m']],
    ['$lte:m', '$lte', ['m']],
    ['$btw:a,m', '$btw', ['a', 'm']],
    ['$ilike:v', '$ilike', ['v']],
    ['$sw:v', '$sw', ['v']],
    ['$contains:v', '$contains', ['v']],
  ])('$not:%s negates %s', (rest, op, values) => {
    expect(clause(`filter.name=$not:${rest}`)).toEqual({ negate: true, op, values });
  });

  test('the value is everything after the operator, colons included', () => {
    expect(clause('filter.name=$eq:a:b:c')).toEqual({ negate: false, op: '$eq', values: ['a:b:c'] });
    expect(clause('filter.name=a:b')).toEqual({ negate: false, op: '$eq', values: ['a:b'] });
    expect(clause('filter.name=$not:a:b')).toEqual({ negate: true, op: '$eq', values: ['a:b'] });
  });

  test('a clause names the stored field it filters', () => {
    expect(parse('filter.uuid=$eq:po_1').filters[0]).toMatchObject({ property: 'uuid', column: '_id', type: 'string' });
    expect(parse('filter.tags=$eq:red').filters[0]).toMatchObject({ property: 'tags', column: 'tags', type: 'string[]' });
  });

  test('a property filtered twice gives two clauses, in order', () => {
    expect(parse('filter.amount=$gte:100&filter.amount=$lte:500&filter.status=success').filters.map((f) => [f.property, f.op, f.values])).toEqual([
      ['amount', '$gte', [100]],
      ['amount', '$lte', [500]],
      ['status', '$eq', ['success']],
    ]);
  });
});

describe('refused filters name the parameter', () => {
  test.each([
    ['filter.amount=abc', 'is not an integer'],
    ['filter.amount=$eq:1.5', 'is not an integer'],
    ['filter.amount=$eq:1e3', 'is not an integer'],
    ['filter.amount=$gt:', 'is not an integer'],
    ['filter.amount=$eq:9007199254740993', 'is not an integer'],
    ['filter.amount=$in:1,,2', 'is not an integer'],
    ['filter.live=yes', 'is not a boolean'],
    ['filter.live=TRUE', 'is not a boolean'],
    ['filter.created_at=tomorrow', 'is not an ISO 8601 date'],
    ['filter.created_at=$gt:2026-02-30', 'is not an ISO 8601 date'],
    ['filter.created_at=$gt:1767225600', 'is not an ISO 8601 date'],
    ['filter.live=$gt:true', '$gt does not apply to live, which is a boolean'],
    ['filter.live=$btw:false,true', '$btw does not apply to live'],
    ['filter.live=$ilike:t', '$ilike does not apply to live'],
    ['filter.tags=$gte:red', '$gte does not apply to tags, which is a list of strings'],
    ['filter.tags=$btw:a,b', '$btw does not apply to tags'],
    ['filter.amount=$ilike:1', '$ilike does not apply to amount, which is an integer'],
    ['filter.amount=$sw:1', '$sw does not apply to amount'],
    ['filter.created_at=$contains:2026', '$contains does not apply to created_at, which is a date'],
    ['filter.amount=$btw:1', '$btw takes two comma-separated values'],
    ['filter.amount=$btw:1,2,3', '$btw takes two comma-separated values'],
    ['filter.status=$null:x', '$null takes no value'],
    ['filter.status=$null:', '$null takes no value'],
    ['filter.status=$eq', '$eq needs a value'],
    ['filter.status=$in', '$in needs a value'],
    ['filter.status=$foo:x', "Unknown operator '$foo'"],
    ['filter.status=$EQ:x', "Unknown operator '$EQ'"],
    ['filter.status=$regex:.*', "Unknown operator '$regex'"],
    ['filter.status=$where', "Unknown operator '$where'"],
    ['filter.status=$or:$eq:x', "Unknown operator '$or'"],
    ['filter.status=$not', '$not must be followed by an operator or a value'],
    ['filter.status=$not:', '$not must be followed by an operator or a value'],
    ['filter.status=$not:$not:x', '$not may be given once'],
    ['filter.status=$eq:$not:x', null],
  ])('%s: %s', (qs, message) => {
    if (message === null) return expect(clause(qs)).toEqual({ negate: false, op: '$eq', values: ['$not:x'] });
    const err = refused(qs);
    expect(err).toMatchObject({ kind: 'invalid_request', code: 'parameter_invalid', param: qs.slice(0, qs.indexOf('=')) });
    expect(err.message).toContain(message);
  });

  test('an unknown property is a 400 naming it and listing the filterable ones', () => {
    expect(refused('filter.foo=1')).toMatchObject({
      code: 'parameter_invalid',
      param: 'filter.foo',
      message: "Unknown filter property 'foo'; filterable: status, name, amount, created_at, live, tags, uuid",
    });
  });

  test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', '', 'status.x', '_id', 'seq'])(
    'filter.%s is an unknown property, not a crash',
    (property) => {
      expect(refused(`filter.${property}=$eq:1`)).toMatchObject({ code: 'parameter_invalid', param: `filter.${property}` });
      expect(refusal(() => parsePageQuery({ [`filter.${property}`]: '1' }, SPEC))).toMatchObject({ param: `filter.${property}` });
    },
  );

  test.each(['foo', 'filter', 'search', 'select', 'sort', 'Limit', 'constructor', 'toString'])('the top-level key %j is parameter_unknown', (key) => {
    // Directly: api/http/query.ts already drops `constructor` from a query string.
    expect(refusal(() => parsePageQuery({ [key]: '1' }, SPEC))).toMatchObject({ code: 'parameter_unknown', param: key, message: `Received unknown parameter: ${key}` });
  });

  test('a filter in the bracket form, or a value that is not text, is refused', () => {
    expect(refused('filter.status[$ne]=x')).toMatchObject({ code: 'parameter_invalid', param: 'filter.status' });
    expect(refusal(() => parsePageQuery({ 'filter.status': { $ne: null } }, SPEC))).toMatchObject({ param: 'filter.status' });
    expect(refusal(() => parsePageQuery({ 'filter.amount': [1] }, SPEC))).toMatchObject({ param: 'filter.amount' });
  });

  test(`at most ${MAX_FILTER_CLAUSES} conditions, and ${MAX_LIST_VALUES} values in a list`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `filter.amount=$gte:${i}`).join('&');
    expect(parse(many(MAX_FILTER_CLAUSES)).filters).toHaveLength(MAX_FILTER_CLAUSES);
    expect(refused(many(MAX_FILTER_CLAUSES + 1))).toMatchObject({ param: 'filter.amount' });
    const list = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
    expect(clause(`filter.amount=$in:${list(MAX_LIST_VALUES)}`).values).toHaveLength(MAX_LIST_VALUES);
    expect(refused(`filter.amount=$in:${list(MAX_LIST_VALUES + 1)}`)).toMatchObject({ param: 'filter.amount' });
    expect(refused(`filter.tags=$contains:${list(MAX_LIST_VALUES + 1)}`)).toMatchObject({ param: 'filter.tags' });
  });

  test('a long value is not echoed whole', () => {
    expect(refused(`filter.amount=${'9'.repeat(5000)}`).message.length).toBeLessThan(200);
  });
});

describe('injection-shaped values are plain typed values', () => {
  test.each([
    ['{"$gt":""}', '{"$gt":""}'],
    ['{"$ne":null}', '{"$ne":null}'],
    ['.*', '.*'],
    ['^a|b$', '^a|b$'],
    ['a\\b', 'a\\b'],
    ['[object Object]', '[object Object]'],
  ])('a bare %s is an equality with that text', (value, text) => {
    expect(clause(`filter.name=${encodeURIComponent(value)}`)).toEqual({ negate: false, op: '$eq', values: [text] });
  });

  test('a value beginning with $ is written after an operator, and stays text', () => {
    expect(clause('filter.name=$eq:$where')).toEqual({ negate: false, op: '$eq', values: ['$where'] });
    expect(clause('filter.name=$in:$gt,$where')).toEqual({ negate: false, op: '$in', values: ['$gt', '$where'] });
    expect(clause('filter.name=$ilike:$regex')).toEqual({ negate: false, op: '$ilike', values: ['$regex'] });
  });

  test('every value of every clause is a string, number, boolean or Date', () => {
    const q = parse(
      'filter.name=$in:{"$gt":""},x&filter.amount=$btw:1,2&filter.live=true&filter.created_at=$gt:2026-01-01&filter.tags=$contains:{},[]&filter.status=$not:$null',
    );
    for (const f of q.filters)
      for (const v of f.values) expect(typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date).toBe(true);
  });

  test('an own __proto__ key (as JSON.parse makes one) is an unknown parameter, and pollutes nothing', () => {
    expect(refusal(() => parsePageQuery(JSON.parse('{"__proto__": {"polluted": 1}}'), SPEC))).toMatchObject({ code: 'parameter_unknown', param: '__proto__' });
    expect(refusal(() => parsePageQuery(JSON.parse('{"filter.__proto__": "x"}'), SPEC))).toMatchObject({ param: 'filter.__proto__' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("a date filter's ISO 8601 instants", () => {
  test.each([
    ['2026-01-01', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T10:00', '2026-01-01T10:00:00.000Z'],
    ['2026-01-01T10:00:00', '2026-01-01T10:00:00.000Z'],
    ['2026-01-01T10:00:00.5Z', '2026-01-01T10:00:00.500Z'],
    ['2026-01-01T10:00:00+01:00', '2026-01-01T09:00:00.000Z'],
    ['2026-01-01T10:00:00-0130', '2026-01-01T11:30:00.000Z'],
    // `+01:00` sent unencoded in a query string arrives with a space for the plus.
    ['2026-01-01T10:00:00 01:00', '2026-01-01T09:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('%s is %s', (text, iso) => expect(filterInstant(text)?.toISOString()).toBe(iso));

  test.each(['2026-02-29', '2026-13-01', '2026-1-1', '26-01-01', '2026-01-01Z', '2026-01-01T25:00:00Z', '1767225600', 'now', ''])('%j is not one', (text) => {
    expect(filterInstant(text)).toBeNull();
  });
});

describe('pageQueryString', () => {
  test('writes every part, filters in their canonical operator form', () => {
    const q = parse('filter.status=success&sortBy=id:DESC&limit=50');
    expect(pageQueryString(q, 2)).toBe('?page=2&limit=50&sortBy=id:DESC&filter.status=$eq:success');
  });

  test('negations, $null, lists and dates', () => {
    const q = parse('filter.status=$not:$null&filter.amount=$not:$in:1,2&filter.created_at=$btw:2026-01-01,2026-01-02T10:00:00Z&filter.live=$null');
    expect(pageQueryString(q, 1)).toBe(
      '?page=1&limit=50&sortBy=created_at:DESC&filter.status=$not:$null&filter.amount=$not:$in:1,2' +
        '&filter.created_at=$btw:2026-01-01T00%3A00%3A00.000Z,2026-01-02T10%3A00%3A00.000Z&filter.live=$null',
    );
  });

  test('values are URL-encoded', () => {
    const q = parse(`filter.name=${encodeURIComponent('$eq:a&b=c+d %e #f/?é')}`);
    expect(pageQueryString(q, 1)).toContain('filter.name=$eq:a%26b%3Dc%2Bd%20%25e%20%23f%2F%3F%C3%A9');
  });

  test.each([
    '',
    'limit=7&page=3',
    'sortBy=amount:ASC&sortBy=id:DESC',
    'filter.status=success&filter.status=$not:$eq:x',
    `filter.name=${encodeURIComponent('$eq:a&b=c+d %e,f:g')}`,
    `filter.name=${encodeURIComponent('$in:a b,c+d,$where,{"$ne":null}')}`,
    `filter.name=${encodeURIComponent('$ilike:.*|^\\')}&filter.name=$sw:x&filter.name=$not:$contains:y`,
    'filter.name=$eq:',
    'filter.amount=$btw:-5,5&filter.amount=$not:$gt:3&filter.amount=$null',
    `filter.created_at=$gte:${encodeURIComponent('2026-01-01T10:00:00+05:30')}&filter.created_at=$not:$lte:2026-03-01`,
    'filter.live=$not:$eq:true&filter.live=$in:false',
    'filter.tags=$contains:a,b&filter.tags=$not:$in:c&filter.tags=$ilike:Z&filter.tags=$not:$null',
    'filter.uuid=$eq:po_1',
  ])('reads back to the same query: %s', (qs) => {
    const q = parse(qs);
    for (const page of [1, q.page, 9]) {
      const back = parse(pageQueryString(q, page).slice(1));
      expect(back).toEqual({ ...q, page });
    }
  });
});

describe('buildEnvelope', () => {
  const q = (over: Partial<PageQuery> = {}): PageQuery => ({ ...parse('limit=10&filter.status=success'), ...over });
  const link = (page: number) => `/payouts?page=${page}&limit=10&sortBy=created_at:DESC&filter.status=$eq:success`;

  test('an empty list: no pages, and the links point at page 1, the one page there is', () => {
    expect(buildEnvelope([], 0, q(), '/payouts')).toEqual({
      data: [],
      meta: { itemsPerPage: 10, totalItems: 0, currentPage: 1, totalPages: 0, sortBy: [['created_at', 'DESC']] },
      links: { first: link(1), previous: null, current: link(1), next: null, last: link(1) },
    });
  });

  test('the first of several pages has no previous', () => {
    expect(buildEnvelope([1], 25, q(), '/payouts')).toMatchObject({
      meta: { itemsPerPage: 10, totalItems: 25, currentPage: 1, totalPages: 3 },
      links: { first: link(1), previous: null, current: link(1), next: link(2), last: link(3) },
    });
  });

  test('a middle page links both ways', () => {
    expect(buildEnvelope([1], 25, q({ page: 2 }), '/payouts').links).toEqual({ first: link(1), previous: link(1), current: link(2), next: link(3), last: link(3) });
  });

  test('the last, partial page has no next', () => {
    expect(buildEnvelope([1, 2, 3, 4, 5], 25, q({ page: 3 }), '/payouts')).toMatchObject({
      data: [1, 2, 3, 4, 5],
      meta: { currentPage: 3, totalPages: 3 },
      links: { previous: link(2), current: link(3), next: null, last: link(3) },
    });
  });

  test('a full last page: total a multiple of the limit', () => {
    expect(buildEnvelope([1], 30, q({ page: 3 }), '/payouts')).toMatchObject({ meta: { totalPages: 3 }, links: { next: null, last: link(3) } });
  });

  test('past the end: no data, and previous goes back to the last real page', () => {
    expect(buildEnvelope([], 25, q({ page: 7 }), '/payouts')).toMatchObject({
      data: [],
      meta: { totalItems: 25, currentPage: 7, totalPages: 3 },
      links: { first: link(1), previous: link(3), current: link(7), next: null, last: link(3) },
    });
    expect(buildEnvelope([], 0, q({ page: 4 }), '/payouts').links).toMatchObject({ previous: link(1), next: null, last: link(1) });
  });

  test('the envelope matches its schema', () => {
    const schema = pageEnvelopeSchema(z.object({ id: z.number() }).strict());
    expect(schema.parse(buildEnvelope([{ id: 1 }], 25, q({ page: 2 }), '/payouts'))).toBeTruthy();
    expect(schema.parse(buildEnvelope([], 0, q(), '/payouts'))).toBeTruthy();
  });
});

describe('pageQuerySchema in a route', () => {
  const schema = pageQuerySchema(SPEC);
  const viaRoute = (qs: string) => parseOrThrow(schema, parseQuery(new URLSearchParams(qs)), 'query');
  const refusedViaRoute = (qs: string) => refusal(() => viaRoute(qs));

  test('a valid query parses to the PageQuery', () => {
    expect(viaRoute('limit=5&page=2&sortBy=amount:ASC&filter.amount=$gte:100&filter.amount=$lte:500')).toEqual(
      parse('limit=5&page=2&sortBy=amount:ASC&filter.amount=$gte:100&filter.amount=$lte:500'),
    );
    expect(viaRoute('')).toEqual(parsePageQuery({}, SPEC));
  });

  test.each([
    ['limit=2000', 'limit', 'parameter_invalid'],
    ['limit=1&limit=2', 'limit', 'parameter_invalid'],
    ['page=0', 'page', 'parameter_invalid'],
    ['sortBy=status:ASC', 'sortBy', 'parameter_invalid'],
    ['filter.foo=1', 'filter.foo', 'parameter_invalid'],
    ['filter.constructor=1', 'filter.constructor', 'parameter_invalid'],
    ['filter.amount=abc', 'filter.amount', 'parameter_invalid'],
    ['filter.status=$foo:x', 'filter.status', 'parameter_invalid'],
    ['filter.status[x]=1', 'filter.status', 'parameter_invalid'],
    ['starting_after=x', 'starting_after', 'parameter_unknown'],
  ])('%s is the 400 naming %s', (qs, param, code) => {
    const err = refusedViaRoute(qs);
    expect(err).toMatchObject({ kind: 'invalid_request', code, param });
    if (code === 'parameter_invalid') expect(err.message.startsWith(`Invalid ${param}: `)).toBe(true);
  });

  test('the message of the refusal is the one parsePageQuery gives', () => {
    expect(refusedViaRoute('filter.foo=1').message).toBe(`Invalid filter.foo: ${refused('filter.foo=1').message}`);
  });

  test('safeParse reports the refusal as an issue rather than throwing', () => {
    const r = schema.safeParse({ 'filter.foo': '1' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ code: 'custom', path: ['filter.foo'] });
  });

  test('a spec whose default sort is not sortable is a programming error, found when the schema is built', () => {
    expect(() => pageQuerySchema({ ...SPEC, defaultSort: ['status', 'ASC'] })).toThrow(/default sort/);
    expect(() => pageQuerySchema({ ...SPEC, sortable: { id: '$where' }, defaultSort: ['id', 'ASC'] })).toThrow(/stored field/);
  });

  describe('the OpenAPI document of a route using it', () => {
    const listRoute = route({
      method: 'get',
      path: '/payouts',
      versions: 'unversioned',
      auth: 'secret',
      summary: 'List payouts',
      tags: ['Payouts'],
      query: schema,
      responses: { 200: { description: 'A page', schema: pageEnvelopeSchema(z.object({ uuid: z.string() }).strict()) } },
      handler: async ({ query }) => ({ status: 200, body: query }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc = buildOpenApi([listRoute]) as any;
    const get = doc.paths['/payouts'].get;
    const param = (name: string) => get.parameters.find((p: { name: string }) => p.name === name);

    test('one query parameter each: limit, page, sortBy and a filter per filterable property', () => {
      expect(get.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in} ${p.name} ${p.required}`)).toEqual(
        ['limit', 'page', 'sortBy', ...Object.keys(SPEC.filterable).map((f) => `filter.${f}`)].map((n) => `query ${n} false`),
      );
    });

    test('limit and page are integers with their bounds and defaults', () => {
      expect(param('limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 50 });
      expect(param('page').schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    });

    test('sortBy lists the columns and directions it accepts', () => {
      expect(param('sortBy').schema).toMatchObject({ type: 'array', items: { type: 'string' } });
      expect(param('sortBy').schema.items.enum).toEqual(['id:ASC', 'id:DESC', 'created_at:ASC', 'created_at:DESC', 'amount:ASC', 'amount:DESC', 'uuid:ASC', 'uuid:DESC']);
      for (const value of param('sortBy').schema.items.enum) expect(() => parse(`sortBy=${value}`)).not.toThrow();
    });

    test('each filter says its operators, and only those its type takes', () => {
      expect(param('filter.live').schema).toMatchObject({ type: 'array', items: { type: 'string' } });
      expect(param('filter.live').description).toContain('Operators: $eq, $null, $in.');
      expect(param('filter.tags').description).toContain('Operators: $eq, $null, $in, $ilike, $sw, $contains.');
      expect(param('filter.amount').description).not.toContain('$ilike');
    });

    test("a filter's own description comes first, before the operators' notes", () => {
      expect(param('filter.uuid').description).toMatch(/^The payout's UUID\. Filter on uuid \(a string\): /);
      expect(param('filter.status').description).toMatch(/^Filter on status \(a string\): /);
    });

    test('the response is the envelope, previous and next nullable', () => {
      const body = get.responses['200'].content['application/json'].schema;
      expect(Object.keys(body.properties)).toEqual(['data', 'meta', 'links']);
      expect(body.properties.links.properties.next.type).toEqual(['string', 'null']);
      // A pair is an array of exactly two strings (a tuple would be written as 3.0's invalid `items: [...]`).
      expect(body.properties.meta.properties.sortBy.items).toMatchObject({ type: 'array', minItems: 2, maxItems: 2, items: { type: 'string' } });
    });

    test('the whole document is plain JSON', () => {
      expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    });
  });
});
