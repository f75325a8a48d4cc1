import { z } from 'zod';
import { invalidRequest } from '../../domain/errors';
import { MAX_FILTER_CLAUSES, MAX_LIST_VALUES, queryReadBy, quote, repeatable, type FilterClause, type FilterOperator, type SortDirection } from '../../domain/page-query';
import { MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS, parseTitleSearch, words, type TitleSearch } from '../../domain/text-search';
import {
  CATALOG_FILTER_COLUMNS,
  PRODUCT_FILTER_COLUMNS,
  PRODUCT_SORT_COLUMNS,
  type CatalogFilterProperty,
  type ProductFilterProperty,
  type ProductSortColumn,
} from '../../data/catalog';

// The query language of the catalog's lists (GET /catalogs, /catalogs-products, /category), in the syntax
// of the older page-numbered lists (domain/page-query.ts): `filter.<property>=<operator>:<value>` or a bare
// value for `$eq`, comma-separated values for `$in` and `$btw` (here also in brackets, as the spec writes
// them: `$in:[a,b]`), a repeated filter ANDs, `sortBy=<column>:ASC|DESC`, and any other key is a 400 naming
// it. Values are typed here (integers, decimals, typed ids) and placed by the data layer only where a value
// goes, as in data/page-list.ts. Differences from the page-numbered lists: `perPage` (not `limit`, max 100,
// default 20) as the spec names it, no `$not`/`$null`/text operators (the properties are numbers and ids),
// ratingsAverage takes decimals, and the spec's own parameters (`isInStock`, `categoryId`, `filter.attr.*`,
// `filter.title`).

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
const DEFAULT_SORT: [ProductSortColumn, SortDirection] = ['popularity', 'DESC'];

/** Every parameter of the three lists; each list takes some of them. */
export type BrowseParam =
  | 'filter.catalogId'
  | 'filter.tags'
  | 'page'
  | 'perPage'
  | 'filter.ratingsCount'
  | 'filter.ratingsAverage'
  | 'filter.price'
  | 'filter.title'
  | 'filter.attr'
  | 'isInStock'
  | 'categoryId'
  | 'sortBy';

export interface BrowseQuery {
  /** On catalogs: `_id` and `tags`. */
  catalogClauses: FilterClause[];
  /** On products: price, ratings_count, ratings_average. */
  productClauses: FilterClause[];
  attributes: Array<{ attributeId: string; valueIds: string[] }>;
  title: TitleSearch | null;
  inStockOnly: boolean;
  categoryId: string | null;
  sort: [ProductSortColumn, SortDirection];
  page: number;
  perPage: number;
}

type Kind = { type: 'integer' } | { type: 'decimal' } | { type: 'id'; prefix: string } | { type: 'tag' };

const NUMERIC_OPERATORS: readonly FilterOperator[] = ['$eq', '$in', '$gt', '$gte', '$lt', '$lte', '$btw'];
const SET_OPERATORS: readonly FilterOperator[] = ['$eq', '$in'];

const ID_RE = (prefix: string) => new RegExp(`^${prefix}_[a-z]{2,8}_[0-9A-Za-z]{8,64}$`);


/** A query key's values: one string, or several when the key repeats; anything else (a `key[sub]` form) is refused. */
function strings(raw: unknown, param: string, example: string): string[] {
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return raw as string[];
  throw invalidRequest('parameter_invalid', `Write ${param}=${example}`, param);
}

function once(raw: unknown, param: string, example: string): string {
  const values = strings(raw, param, example);
  if (values.length > 1) throw invalidRequest('parameter_invalid', `${param} may be given once`, param);
  return values[0]!;
}

function positiveInteger(text: string, param: string, max: number): number {
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    throw invalidRequest('parameter_invalid', max === Number.MAX_SAFE_INTEGER ? `${param} must be an integer of at least 1` : `${param} must be an integer from 1 to ${max}`, param);
  return n;
}

function typedValue(kind: Kind, text: string, param: string): string | number {
  switch (kind.type) {
    case 'integer': {
      const n = /^-?\d{1,16}$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(n)) throw invalidRequest('parameter_invalid', `${quote(text)} is not an integer`, param);
      return n;
    }
    case 'decimal': {
      const n = /^-?\d{1,16}(\.\d{1,16})?$/.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(n)) throw invalidRequest('parameter_invalid', `${quote(text)} is not a number (digits, optionally a decimal point: 4.5)`, param);
      return n;
    }
    case 'id':
      if (!ID_RE(kind.prefix).test(text)) throw invalidRequest('parameter_invalid', `${quote(text)} is not ${/^[aeiou]/.test(kind.prefix) ? 'an' : 'a'} ${kind.prefix}_... id`, param);
      return text;
    case 'tag':
      if (text === '') throw invalidRequest('parameter_invalid', 'A tag is not empty', param);
      return text;
  }
}

/**
 * One filter value: `<operator>:<value>` or a bare value meaning `$eq`. As in the page-numbered lists, a
 * leading `$` that names no operator is refused rather than read as a value (`$eq:$x` is how a value
 * beginning with `$` is written).
 */
function parseCondition(raw: string, kind: Kind, operators: readonly FilterOperator[], param: string): { op: FilterOperator; values: Array<string | number> } {
  let op: FilterOperator = '$eq';
  let text = raw;
  if (raw.startsWith('$')) {
    const colon = raw.indexOf(':');
    const token = colon < 0 ? raw : raw.slice(0, colon);
    if (!(operators as readonly string[]).includes(token))
      throw invalidRequest('parameter_invalid', `Unknown operator ${quote(token)} for ${param}; operators: ${operators.join(', ')} (a value beginning with '$' is written $eq:<value>)`, param);
    if (colon < 0) throw invalidRequest('parameter_invalid', `${token} needs a value (${token}:<value>)`, param);
    op = token as FilterOperator;
    text = raw.slice(colon + 1);
  }
  let parts = [text];
  if (op === '$in' || op === '$btw') {
    const inner = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    parts = inner.split(',').map((p) => p.trim());
    if (op === '$btw' && parts.length !== 2) throw invalidRequest('parameter_invalid', `$btw takes two comma-separated values ($btw:<min>,<max>), got ${parts.length}`, param);
    if (parts.length > MAX_LIST_VALUES) throw invalidRequest('parameter_invalid', `${op} takes at most ${MAX_LIST_VALUES} values, got ${parts.length}`, param);
    if (parts.some((p) => p === '')) throw invalidRequest('parameter_invalid', `${op} takes comma-separated values with none empty (${op}:[a,b])`, param);
  }
  return { op, values: [...new Set(parts.map((p) => typedValue(kind, p, param)))] };
}

const PRODUCT_KINDS: Record<ProductFilterProperty, Kind> = {
  price: { type: 'integer' },
  ratingsCount: { type: 'integer' },
  ratingsAverage: { type: 'decimal' },
};
const CATALOG_KINDS: Record<CatalogFilterProperty, Kind> = {
  catalogId: { type: 'id', prefix: 'ctl' },
  tags: { type: 'tag' },
};

function parseSort(text: string): [ProductSortColumn, SortDirection] {
  const colon = text.lastIndexOf(':');
  const column = colon < 0 ? text : text.slice(0, colon);
  const dir = colon < 0 ? '' : text.slice(colon + 1);
  if (!(PRODUCT_SORT_COLUMNS as readonly string[]).includes(column))
    throw invalidRequest('parameter_invalid', `Unknown sort column ${quote(column)}; sortable: ${PRODUCT_SORT_COLUMNS.join(', ')}`, 'sortBy');
  if (dir !== 'ASC' && dir !== 'DESC') throw invalidRequest('parameter_invalid', `The direction of ${column} must be ASC or DESC (sortBy=${column}:DESC)`, 'sortBy');
  return [column as ProductSortColumn, dir];
}

function parseTitle(text: string): TitleSearch {
  const param = 'filter.title';
  if (text.length > MAX_SEARCH_LENGTH) throw invalidRequest('parameter_invalid', `filter.title is at most ${MAX_SEARCH_LENGTH} characters`, param);
  if (words(text).length > MAX_SEARCH_WORDS) throw invalidRequest('parameter_invalid', `filter.title has at most ${MAX_SEARCH_WORDS} words`, param);
  const search = parseTitleSearch(text);
  if (!search) throw invalidRequest('parameter_invalid', 'filter.title has no word to search for (letters or digits)', param);
  return search;
}

/**
 * The typed query of one list from the query parser's output (api/http/query.ts): `allowed` names the
 * parameters this list takes, any other key is `parameter_unknown`. Every refusal is a 400 naming the
 * parameter.
 */
export function parseBrowseQuery(raw: Record<string, unknown>, allowed: ReadonlySet<BrowseParam>): BrowseQuery {
  const q: BrowseQuery = {
    catalogClauses: [],
    productClauses: [],
    attributes: [],
    title: null,
    inStockOnly: true,
    categoryId: null,
    sort: DEFAULT_SORT,
    page: 1,
    perPage: DEFAULT_PER_PAGE,
  };
  let conditions = 0;
  const count = (param: string) => {
    if (++conditions > MAX_FILTER_CLAUSES) throw invalidRequest('parameter_invalid', `At most ${MAX_FILTER_CLAUSES} filter conditions`, param);
  };
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (value === undefined) continue;
    const unknown = () => invalidRequest('parameter_unknown', `Received unknown parameter: ${key}`, key);
    const property = key.startsWith('filter.') ? key.slice('filter.'.length) : null;
    if (key === 'page' && allowed.has('page')) q.page = positiveInteger(once(value, key, '<page number>'), key, Number.MAX_SAFE_INTEGER);
    else if (key === 'perPage' && allowed.has('perPage')) q.perPage = positiveInteger(once(value, key, '<items per page>'), key, MAX_PER_PAGE);
    else if (key === 'sortBy' && allowed.has('sortBy')) q.sort = parseSort(once(value, key, 'popularity:DESC'));
    else if (key === 'isInStock' && allowed.has('isInStock')) {
      const text = once(value, key, 'false');
      if (text !== 'true' && text !== 'false') throw invalidRequest('parameter_invalid', 'isInStock is true or false', key);
      q.inStockOnly = text === 'true';
    } else if (key === 'categoryId' && allowed.has('categoryId')) q.categoryId = String(typedValue({ type: 'id', prefix: 'cat' }, once(value, key, '<category id>'), key));
    else if (key === 'filter.title' && allowed.has('filter.title')) q.title = parseTitle(once(value, key, '<words>'));
    else if (property !== null && Object.hasOwn(PRODUCT_FILTER_COLUMNS, property) && allowed.has(key as BrowseParam)) {
      const p = property as ProductFilterProperty;
      for (const item of strings(value, key, '$gte:100')) {
        count(key);
        const { op, values } = parseCondition(item, PRODUCT_KINDS[p], NUMERIC_OPERATORS, key);
        q.productClauses.push({ property: p, column: PRODUCT_FILTER_COLUMNS[p], type: 'integer', negate: false, op, values });
      }
    } else if (property !== null && Object.hasOwn(CATALOG_FILTER_COLUMNS, property) && allowed.has(key as BrowseParam)) {
      const p = property as CatalogFilterProperty;
      for (const item of strings(value, key, '$in:[a,b]')) {
        count(key);
        const { op, values } = parseCondition(item, CATALOG_KINDS[p], SET_OPERATORS, key);
        q.catalogClauses.push({ property: p, column: CATALOG_FILTER_COLUMNS[p], type: p === 'tags' ? 'string[]' : 'string', negate: false, op, values });
      }
    } else if (key.startsWith('filter.attr.') && allowed.has('filter.attr')) {
      const attributeId = key.slice('filter.attr.'.length);
      typedValue({ type: 'id', prefix: 'attr' }, attributeId, key);
      for (const item of strings(value, key, '$in:[val_...,val_...]')) {
        count(key);
        const { values } = parseCondition(item, { type: 'id', prefix: 'val' }, SET_OPERATORS, key);
        q.attributes.push({ attributeId, valueIds: values as string[] });
      }
    } else throw unknown();
  }
  return q;
}

const DESCRIPTIONS: Record<Exclude<BrowseParam, 'filter.attr'>, { text: string; repeatable?: boolean; meta?: Record<string, unknown> }> = {
  'filter.catalogId': { text: 'Catalogs by id: $eq:<ctl id> (or a bare id), or $in:[<ctl id>,<ctl id>] for several.', repeatable: true },
  'filter.tags': { text: 'Catalogs carrying a tag: $eq:<tag> (or a bare tag), or $in:[<tag>,<tag>] for catalogs with any of them.', repeatable: true },
  page: { text: 'Page number, from 1.', meta: { type: 'integer', minimum: 1, default: 1 } },
  perPage: { text: `Products per page, 1 to ${MAX_PER_PAGE}; above is a 400.`, meta: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE } },
  'filter.ratingsCount': { text: 'Number of ratings (an integer): <operator>:<value>, operators $eq $in $gt $gte $lt $lte $btw ($btw:<min>,<max>, inclusive). Repeat to AND.', repeatable: true },
  'filter.ratingsAverage': { text: 'Average rating (a number, 0 to 5, decimals allowed): operators as filter.ratingsCount.', repeatable: true },
  'filter.price': { text: 'Price in minor units (an integer): operators as filter.ratingsCount, e.g. $btw:1000,5000.', repeatable: true },
  'filter.title': {
    text:
      'Word search in the product title: the Arabic title when the value has an Arabic letter, the English one otherwise. Every word must be a whole word of the title, ' +
      'except the last, which may be its beginning (search as you type). Case-insensitive; Arabic is normalised (diacritics and tatweel ignored, أ إ آ as ا, ة as ه, ى as ي).',
  },
  isInStock: { text: 'true (default): products with no stock are left out; false: every product.', meta: { type: 'boolean', default: true } },
  categoryId: { text: 'A category: its products and those of every category under it. Unknown (or another tenant\'s): 404.' },
  sortBy: {
    text: 'Sort column and direction; ties by product id. Default popularity:DESC.',
    meta: { enum: PRODUCT_SORT_COLUMNS.flatMap((c) => [`${c}:ASC`, `${c}:DESC`]), default: 'popularity:DESC' },
  },
};

/**
 * The zod schema of one list's query: the object documents each parameter for the OpenAPI document (as
 * domain/page-query.ts's pageQuerySchema does); validation is parseBrowseQuery's, its refusals turned into
 * zod issues at the parameter they name so api/http/validate.ts answers the same 400.
 */
export function browseQuerySchema(params: readonly BrowseParam[]): z.ZodType<BrowseQuery> {
  const allowed = new Set(params);
  const shape = Object.fromEntries(
    params
      .filter((p): p is Exclude<BrowseParam, 'filter.attr'> => p !== 'filter.attr')
      .map((p) => {
        const d = DESCRIPTIONS[p];
        return [p, (d.repeatable ? repeatable() : z.string().optional()).meta({ description: d.text, ...d.meta })];
      }),
  );
  return queryReadBy(shape, (raw) => parseBrowseQuery(raw, allowed));
}
