import { z } from 'zod';
import { DomainError, invalidRequest } from './errors';
import { parseIsoInstant } from './instants';

// The page-numbered list language of the older interface (payouts, payout recipients, older payment intents
// and refunds): nestjs-paginate's query syntax, parsed once here into typed clauses. No clause carries text a
// user typed as anything but a typed scalar value: the data layer (data/page-list.ts) alone turns clauses
// into MongoDB, with the operators and escaped patterns it chooses.
//
//   limit=<1..1000, default 50>  page=<1.., default 1>  sortBy=<column>:ASC|DESC (repeatable)
//   filter.<property>=[$not:]<operator>:<value>          (repeatable: clauses AND together)

export type FieldType = 'string' | 'integer' | 'date' | 'boolean' | 'string[]';
export type SortDirection = 'ASC' | 'DESC';

export interface PageListSpec {
  /**
   * Filterable properties by public name: type, the stored field when it differs, and what the property
   * means where its name does not say it (the document puts it before the operators' notes).
   */
  filterable: Record<string, { type: FieldType; column?: string; description?: string }>;
  /** Sortable columns by public name -> stored field. */
  sortable: Record<string, string>;
  defaultSort: [string, SortDirection];
}

export type FilterOperator = '$eq' | '$null' | '$in' | '$gt' | '$gte' | '$lt' | '$lte' | '$btw' | '$ilike' | '$sw' | '$contains';
export type FilterValue = string | number | boolean | Date;

export interface FilterClause {
  property: string;
  column: string;
  /** The property's type: `$contains` means one thing on a string and another on a string array. */
  type: FieldType;
  negate: boolean;
  op: FilterOperator;
  values: FilterValue[];
}

export interface PageQuery {
  limit: number;
  page: number;
  sortBy: Array<[string, SortDirection]>;
  filters: FilterClause[];
}

export interface PageEnvelope<T> {
  data: T[];
  meta: { itemsPerPage: number; totalItems: number; currentPage: number; totalPages: number; sortBy: Array<[string, SortDirection]> };
  links: { first: string; previous: string | null; current: string; next: string | null; last: string };
}

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 1000;
/** Bounds on what one request may ask the database to evaluate. */
export const MAX_FILTER_CLAUSES = 20;
export const MAX_LIST_VALUES = 100;

const OPERATORS: readonly FilterOperator[] = ['$eq', '$null', '$in', '$gt', '$gte', '$lt', '$lte', '$btw', '$ilike', '$sw', '$contains'];
const COMPARISONS: readonly FilterOperator[] = ['$gt', '$gte', '$lt', '$lte', '$btw'];
const TEXT: readonly FilterOperator[] = ['$ilike', '$sw', '$contains'];

/** Which operators each type takes: no order on booleans or arrays, text matching on text only. */
const OPERATORS_BY_TYPE: Record<FieldType, ReadonlySet<FilterOperator>> = {
  string: new Set(OPERATORS),
  integer: new Set(OPERATORS.filter((op) => !TEXT.includes(op))),
  date: new Set(OPERATORS.filter((op) => !TEXT.includes(op))),
  boolean: new Set<FilterOperator>(['$eq', '$null', '$in']),
  'string[]': new Set(OPERATORS.filter((op) => !COMPARISONS.includes(op))),
};

const TYPE_NAMES: Record<FieldType, string> = {
  string: 'a string',
  integer: 'an integer',
  date: 'a date',
  boolean: 'a boolean',
  'string[]': 'a list of strings',
};

interface Compiled {
  // Maps, so a property named `constructor` or `__proto__` is simply not there.
  filterable: Map<string, { type: FieldType; column: string; description?: string }>;
  sortable: Map<string, string>;
  defaultSort: [string, SortDirection];
}

const compiled = new WeakMap<PageListSpec, Compiled>();

/** The spec as Maps, checked once: a spec that names no real sort column is a programming error. */
function compile(spec: PageListSpec): Compiled {
  const done = compiled.get(spec);
  if (done) return done;
  const filterable = new Map(
    Object.entries(spec.filterable).map(([name, f]) => [name, { type: f.type, column: f.column ?? name, ...(f.description ? { description: f.description } : {}) }]),
  );
  const sortable = new Map(Object.entries(spec.sortable));
  for (const column of [...[...filterable.values()].map((f) => f.column), ...sortable.values()])
    if (column === '' || column.startsWith('$')) throw new Error(`page list spec: '${column}' is not a stored field name`);
  const [column, dir] = spec.defaultSort;
  if (!sortable.has(column) || (dir !== 'ASC' && dir !== 'DESC')) throw new Error(`page list spec: default sort '${column}:${dir}' is not a sortable column and direction`);
  const c: Compiled = { filterable, sortable, defaultSort: [column, dir] };
  compiled.set(spec, c);
  return c;
}

/** User text inside an error message: quoted, control characters escaped, and not the whole of a long value. */
export function quote(text: string): string {
  return `'${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text).slice(1, -1)}'`;
}

/** `raw` a list of strings (a repeated query key gives an array), or null when it is some other shape. */
function strings(raw: unknown): string[] | null {
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return raw as string[];
  return null;
}

function positiveInteger(raw: unknown, param: string, max: number): number {
  const text = typeof raw === 'number' ? String(raw) : raw;
  const n = typeof text === 'string' && /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    throw invalidRequest('parameter_invalid', max === Number.MAX_SAFE_INTEGER ? 'Must be an integer of at least 1' : `Must be an integer from 1 to ${max}`, param);
  return n;
}

/**
 * A date filter's value: an ISO 8601 date or date-time (domain/instants.ts, the cursor lists' parser), compared
 * as the instant it starts at (nestjs-paginate's reading; the cursor lists' `created` bounds take whole units). An unencoded `+01:00` in a query string arrives as ` 01:00` (a `+` decodes to a space): it is
 * read back as the offset it was.
 */
export function filterInstant(raw: string): Date | null {
  const s = raw.trim().replace(/(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$/, '$1+$2');
  return parseIsoInstant(s)?.at ?? null;
}

/** One value typed by its property, or a 400 naming the filter. */
function typed(type: FieldType, text: string, param: string): FilterValue {
  switch (type) {
    case 'string':
    case 'string[]':
      return text;
    case 'integer': {
      const n = /^-?\d{1,16}$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(n)) throw invalidRequest('parameter_invalid', `${quote(text)} is not an integer (a safe integer, digits only)`, param);
      return n;
    }
    case 'date': {
      const at = filterInstant(text);
      if (!at) throw invalidRequest('parameter_invalid', `${quote(text)} is not an ISO 8601 date or date-time (2026-01-01, 2026-01-01T10:00:00Z)`, param);
      return at;
    }
    case 'boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw invalidRequest('parameter_invalid', `${quote(text)} is not a boolean (true or false)`, param);
  }
}

/** How many values an operator takes, and whether they are comma-separated. */
function valueTexts(op: FilterOperator, type: FieldType, text: string, param: string): string[] {
  const list = op === '$in' || op === '$btw' || (op === '$contains' && type === 'string[]');
  if (!list) return [text];
  const parts = text.split(',');
  if (op === '$btw' && parts.length !== 2) throw invalidRequest('parameter_invalid', `$btw takes two comma-separated values ($btw:<from>,<to>), got ${parts.length}`, param);
  if (parts.length > MAX_LIST_VALUES) throw invalidRequest('parameter_invalid', `${op} takes at most ${MAX_LIST_VALUES} values, got ${parts.length}`, param);
  return parts;
}

/**
 * One `filter.<property>` value: `[$not:]<operator>[:<value>]`, or a bare value meaning `$eq`. As in
 * nestjs-paginate, the value is everything after the operator, colons included (date-times have them). A
 * leading `$` that names no operator is refused rather than read as a value: `$eq:$where` is how a value
 * beginning with `$` is written, so a typo in an operator never silently becomes an equality.
 */
function parseClause(property: string, field: { type: FieldType; column: string }, raw: string): FilterClause {
  const param = `filter.${property}`;
  let rest = raw;
  let negate = false;
  if (rest === '$not' || rest.startsWith('$not:')) {
    negate = true;
    rest = rest.slice('$not:'.length);
    if (rest === '') throw invalidRequest('parameter_invalid', "$not must be followed by an operator or a value ($not:$eq:<value>, $not:$null)", param);
  }
  let op: FilterOperator = '$eq';
  let value: string | undefined = rest;
  if (rest.startsWith('$')) {
    const colon = rest.indexOf(':');
    const token = colon < 0 ? rest : rest.slice(0, colon);
    value = colon < 0 ? undefined : rest.slice(colon + 1);
    if (token === '$not') throw invalidRequest('parameter_invalid', '$not may be given once, before the operator', param);
    if (!(OPERATORS as readonly string[]).includes(token))
      throw invalidRequest(
        'parameter_invalid',
        `Unknown operator ${quote(token)}; operators: $not, ${OPERATORS.join(', ')} (a value beginning with '$' is written $eq:<value>)`,
        param,
      );
    op = token as FilterOperator;
  }
  const allowed = OPERATORS_BY_TYPE[field.type];
  if (!allowed.has(op)) throw invalidRequest('parameter_invalid', `${op} does not apply to ${property}, which is ${TYPE_NAMES[field.type]}; its operators: $not, ${[...allowed].join(', ')}`, param);
  if (op === '$null') {
    if (value !== undefined) throw invalidRequest('parameter_invalid', '$null takes no value (write $null or $not:$null)', param);
    return { property, column: field.column, type: field.type, negate, op, values: [] };
  }
  if (value === undefined) throw invalidRequest('parameter_invalid', `${op} needs a value (${op}:<value>)`, param);
  const values = valueTexts(op, field.type, value, param).map((t) => typed(field.type, t, param));
  return { property, column: field.column, type: field.type, negate, op, values };
}

function parseSort(raw: unknown, c: Compiled): Array<[string, SortDirection]> {
  const items = strings(raw);
  if (!items) throw invalidRequest('parameter_invalid', 'Write sortBy=<column>:ASC or sortBy=<column>:DESC (repeat it to sort by more columns)', 'sortBy');
  const out: Array<[string, SortDirection]> = [];
  const stored = new Set<string>();
  for (const item of items) {
    const colon = item.lastIndexOf(':');
    const column = colon < 0 ? item : item.slice(0, colon);
    const dir = colon < 0 ? '' : item.slice(colon + 1);
    const field = c.sortable.get(column);
    if (field === undefined) throw invalidRequest('parameter_invalid', `Unknown sort column ${quote(column)}; sortable: ${[...c.sortable.keys()].join(', ')}`, 'sortBy');
    if (dir !== 'ASC' && dir !== 'DESC') throw invalidRequest('parameter_invalid', `The direction of ${quote(column)} must be ASC or DESC (sortBy=${column}:ASC)`, 'sortBy');
    // One stored field in one sort twice would be ambiguous (and a MongoDB sort cannot say it).
    if (stored.has(field)) throw invalidRequest('parameter_invalid', `${quote(column)} is sorted by more than once`, 'sortBy');
    stored.add(field);
    out.push([column, dir]);
  }
  return out;
}

/**
 * The parsed query of a page-numbered list, from the query parser's output (api/http/query.ts: a string per
 * key, an array when a key repeats). Every refusal is a 400 DomainError naming the parameter (`limit`,
 * `page`, `sortBy`, `filter.<property>`): `parameter_unknown` for a key that is not `limit`, `page`,
 * `sortBy` or `filter.*`, `parameter_invalid` for everything else.
 */
export function parsePageQuery(raw: Record<string, unknown>, spec: PageListSpec): PageQuery {
  const c = compile(spec);
  let limit = DEFAULT_PAGE_LIMIT;
  let page = 1;
  let sortBy: Array<[string, SortDirection]> = [[c.defaultSort[0], c.defaultSort[1]]];
  const filters: FilterClause[] = [];
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (value === undefined) continue;
    if (key === 'limit') limit = positiveInteger(value, 'limit', MAX_PAGE_LIMIT);
    else if (key === 'page') page = positiveInteger(value, 'page', Number.MAX_SAFE_INTEGER);
    else if (key === 'sortBy') sortBy = parseSort(value, c);
    else if (key.startsWith('filter.')) {
      const property = key.slice('filter.'.length);
      const field = c.filterable.get(property);
      if (!field) throw invalidRequest('parameter_invalid', `Unknown filter property ${quote(property)}; filterable: ${[...c.filterable.keys()].join(', ')}`, key);
      const items = strings(value);
      if (!items) throw invalidRequest('parameter_invalid', `Write ${key}=<operator>:<value> (repeat it for more conditions)`, key);
      for (const item of items) {
        if (filters.length === MAX_FILTER_CLAUSES) throw invalidRequest('parameter_invalid', `At most ${MAX_FILTER_CLAUSES} filter conditions`, key);
        filters.push(parseClause(property, field, item));
      }
    } else throw invalidRequest('parameter_unknown', `Received unknown parameter: ${key}`, key);
  }
  return { limit, page, sortBy, filters };
}

function valueText(v: FilterValue): string {
  return v instanceof Date ? v.toISOString() : String(v);
}

/** A clause in its canonical written form (`$not:$in:a,b`), values URL-encoded. */
function clauseText(f: FilterClause): string {
  const head = f.negate ? '$not:' : '';
  if (f.op === '$null') return `${head}$null`;
  return `${head}${f.op}:${f.values.map((v) => encodeURIComponent(valueText(v))).join(',')}`;
}

/**
 * The query string of `page` of the same list: `?page=2&limit=50&sortBy=id:DESC&filter.status=$eq:success`.
 * Everything is written out (the sort even when it is the default), so a link means the same list
 * whatever the defaults become; parsePageQuery reads it back to the same query.
 */
export function pageQueryString(q: PageQuery, page: number): string {
  const parts = [`page=${page}`, `limit=${q.limit}`];
  for (const [column, dir] of q.sortBy) parts.push(`sortBy=${encodeURIComponent(column)}:${dir}`);
  for (const f of q.filters) parts.push(`filter.${encodeURIComponent(f.property)}=${clauseText(f)}`);
  return `?${parts.join('&')}`;
}

/**
 * The envelope of one page. As nestjs-paginate: `itemsPerPage` is the limit asked for, `totalPages` is
 * ceil(total / limit), so 0 for an empty list. Unlike it, `first` and `last` are always links (the spec
 * types them as strings): `last` is page 1 of an empty list, the one page that exists. `previous` is null
 * on page 1, `next` null on the last page and past it; past the end, `previous` is the last real page
 * rather than the page before the one asked for, so a client that overshot can walk back in one step.
 */
export function buildEnvelope<T>(data: T[], totalItems: number, q: PageQuery, path: string): PageEnvelope<T> {
  const totalPages = Math.ceil(totalItems / q.limit);
  const lastPage = Math.max(totalPages, 1);
  const link = (page: number) => `${path}${pageQueryString(q, page)}`;
  return {
    data,
    meta: { itemsPerPage: q.limit, totalItems, currentPage: q.page, totalPages, sortBy: q.sortBy.map(([c, d]) => [c, d]) },
    links: {
      first: link(1),
      previous: q.page > 1 ? link(Math.min(q.page - 1, lastPage)) : null,
      current: link(q.page),
      next: q.page < totalPages ? link(q.page + 1) : null,
      last: link(lastPage),
    },
  };
}

/** The envelope of a list of `item`s, for a route's response and the OpenAPI document. */
export function pageEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z
    .object({
      data: z.array(item),
      meta: z
        .object({
          itemsPerPage: z.number().int(),
          totalItems: z.number().int(),
          currentPage: z.number().int(),
          totalPages: z.number().int(),
          // A pair as an array of two strings: zod-to-openapi writes a tuple as OpenAPI 3.0's `items: [...]`, which
          // is not a valid schema in the 3.1 document we publish.
          sortBy: z
            .array(z.array(z.string()).min(2).max(2).meta({ description: '[column, direction], direction ASC or DESC' }))
            .meta({ description: '[column, direction] pairs, in order' }),
        })
        .strict(),
      links: z
        .object({
          first: z.string(),
          previous: z.string().nullable(),
          current: z.string(),
          next: z.string().nullable(),
          last: z.string(),
        })
        .strict()
        .meta({ description: 'The path and query of pages of the same list; previous and next are null at the ends' }),
    })
    .strict();
}

/** What an operator means on a type, where the operator's name does not say it. */
const TYPE_NOTES: Partial<Record<FieldType, string>> = {
  string: ' $ilike is a case-insensitive substring, $sw a case-insensitive prefix, $contains a case-sensitive substring.',
  date: ' Values are ISO 8601 dates or date-times, compared as instants; a date alone is its midnight UTC.',
  'string[]': ' $eq and $in match an element, $contains:<a>,<b> every value given, $ilike and $sw any element.',
};

/**
 * A query key a client may repeat: one value arrives as a string, several as an array; both become an array,
 * which is also what the document says (a form-style, exploded array parameter).
 */
/** A query key that may repeat: one value, or several (documented as an array of strings). */
export const repeatable = () => z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string())).optional();

/**
 * A query object documented by `shape` (the OpenAPI document reads the object under the transform) and read
 * by `parse` alone: its DomainErrors become zod issues at the parameter they name, so api/http/validate.ts
 * answers the same 400 whichever reader refused.
 */
export function queryReadBy<T>(shape: z.ZodRawShape, parse: (raw: Record<string, unknown>) => T): z.ZodType<T> {
  return z
    .object(shape)
    .loose()
    .transform((raw, ctx): T => {
      try {
        return parse(raw as Record<string, unknown>);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        if (err.code === 'parameter_unknown') ctx.addIssue({ code: 'unrecognized_keys', keys: [err.param ?? ''], input: raw, message: err.message });
        else ctx.addIssue({ code: 'custom', path: err.param ? [err.param] : [], message: err.message, input: raw });
        return z.NEVER;
      }
    }) as unknown as z.ZodType<T>;
}

/**
 * The zod schema of a page-numbered list's `query`. The object documents each parameter for the OpenAPI
 * document (zod-to-openapi reads the object under the transform: `limit`, `page`, `sortBy` with its
 * columns, one `filter.<property>` per filterable property); validation is parsePageQuery's alone, its
 * refusals turned into zod issues at the parameter they name so api/http/validate.ts answers the same 400.
 */
export function pageQuerySchema(spec: PageListSpec): z.ZodType<PageQuery> {
  const c = compile(spec);
  const [defaultColumn, defaultDir] = c.defaultSort;
  const filters = Object.fromEntries(
    [...c.filterable].map(([name, f]) => [
      `filter.${name}`,
      repeatable().meta({
        description:
          (f.description ? `${f.description} ` : '') +
          `Filter on ${name} (${TYPE_NAMES[f.type]}): [$not:]<operator>:<value>, or a bare value for $eq. ` +
          `Operators: ${[...OPERATORS_BY_TYPE[f.type]].join(', ')}.` +
          (TYPE_NOTES[f.type] ?? '') +
          ' $in takes comma-separated values, $btw two (inclusive), $null none. Repeat the parameter to AND conditions.',
      }),
    ]),
  );
  // The wire form is text (validated by parsePageQuery); the document states what that text must say.
  const shape = {
    limit: z
      .string()
      .optional()
      .meta({ description: `Items per page, 1 to ${MAX_PAGE_LIMIT}`, type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT }),
    page: z.string().optional().meta({ description: 'Page number, from 1', type: 'integer', minimum: 1, default: 1 }),
    sortBy: repeatable().meta({
      description: `<column>:ASC or <column>:DESC; repeat to sort by more columns. Default ${defaultColumn}:${defaultDir}.`,
      items: { type: 'string', enum: [...c.sortable.keys()].flatMap((col) => [`${col}:ASC`, `${col}:DESC`]) },
    }),
    ...filters,
  };
  return queryReadBy(shape, (raw) => parsePageQuery(raw, spec));
}
