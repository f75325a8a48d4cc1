import { unwrap, type CallResult } from './errors';

// Iterators over every item of a list, fetching pages as they are consumed (`for await`). Each takes a
// function that fetches one page with the typed client, so filters and types stay those of the call.

type PageCall<B> = Promise<CallResult<B>>;

const OBJECT_ID = /^[a-z]+_[a-z]{2,8}_[0-9A-Za-z]{8,64}$/;

/** An item's own id: `id`, else its first field holding an object id (`payment_intent: 'pi_eu_...'`). */
function defaultIdOf(item: unknown): string {
  const o = item as Record<string, unknown>;
  if (typeof o.id === 'string') return o.id;
  const found = Object.values(o).find((v): v is string => typeof v === 'string' && OBJECT_ID.test(v));
  if (!found) throw new Error('cannot tell the id of a list item: pass idOf');
  return found;
}

/**
 * Cursor lists (`/v202607/...`: `{ data, has_more }`, newest first): follows `starting_after` = the last
 * item's id until `has_more` is false.
 *
 *   for await (const pi of cursorItems((page) => client.GET('/v202607/payment-intents', { params: { query: { ...page, limit: 100 } } })))
 */
export async function* cursorItems<T>(
  fetchPage: (cursor: { starting_after?: string }) => PageCall<{ data: T[]; has_more: boolean }>,
  opts: { idOf?: (item: T) => string } = {},
): AsyncGenerator<T, void, undefined> {
  const idOf = opts.idOf ?? defaultIdOf;
  let cursor: { starting_after?: string } = {};
  for (;;) {
    const page = await unwrap(fetchPage(cursor));
    yield* page.data;
    if (!page.has_more || page.data.length === 0) return;
    cursor = { starting_after: idOf(page.data[page.data.length - 1]) };
  }
}

/** Page-numbered lists of the older interface (`/payouts`, `/refunds`, ...: `{ data, meta: { totalPages } }`), from page 1. */
export async function* pageItems<T>(
  fetchPage: (page: number) => PageCall<{ data: T[]; meta: { currentPage: number; totalPages: number } }>,
): AsyncGenerator<T, void, undefined> {
  for (let n = 1; ; n++) {
    const page = await unwrap(fetchPage(n));
    yield* page.data;
    if (page.data.length === 0 || n >= page.meta.totalPages) return;
  }
}

/**
 * The commerce lists (`/returns`, `/catalogs-products`, `/category`: `{ <items>, pagination: { totalPages } }`),
 * from page 1; `items` picks the list out of a page (`(p) => p.returns`).
 */
export async function* paginationItems<B extends { pagination: { currentPage: number; totalPages: number } }, T>(
  fetchPage: (page: number) => PageCall<B>,
  items: (page: B) => T[],
): AsyncGenerator<T, void, undefined> {
  for (let n = 1; ; n++) {
    const page = await unwrap(fetchPage(n));
    const got = items(page);
    yield* got;
    if (got.length === 0 || n >= page.pagination.totalPages) return;
  }
}
