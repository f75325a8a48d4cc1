import { ApiError, createPayorchClient, cursorItems, pageItems, paginationItems } from '../../../clients/typescript/src';

// The list iterators over a fake API that serves fixed pages.

function api(handler: (url: URL) => unknown, status = 200) {
  const urls: URL[] = [];
  const fetch = async (req: Request) => {
    const url = new URL(req.url);
    urls.push(url);
    return new Response(JSON.stringify(handler(url)), { status, headers: { 'content-type': 'application/json' } });
  };
  return { client: createPayorchClient({ apiKey: 'sk_eu_x', baseUrl: 'http://api.test', fetch, retry: false }), urls };
}

const ids = Array.from({ length: 7 }, (_, i) => `pi_eu_0000000${i}`);

test('cursor lists: starting_after is the last id of each page until has_more is false', async () => {
  const { client, urls } = api((url) => {
    const after = url.searchParams.get('starting_after');
    const from = after ? ids.indexOf(after) + 1 : 0;
    const limit = Number(url.searchParams.get('limit'));
    return { data: ids.slice(from, from + limit).map((id) => ({ payment_intent: id, customer: 'cus_eu_00000001', status: 'pending' })), has_more: from + limit < ids.length };
  });
  const got: string[] = [];
  for await (const pi of cursorItems((page) => client.GET('/v202607/payment-intents', { params: { query: { ...page, limit: 3 } } }))) got.push(pi.payment_intent);
  expect(got).toEqual(ids);
  expect(urls.map((u) => u.searchParams.get('starting_after'))).toEqual([null, ids[2], ids[5]]);
});

test('cursor lists: an item with `id` (events) and an explicit idOf', async () => {
  const { client, urls } = api((url) => (url.searchParams.get('starting_after') ? { data: [], has_more: false } : { data: [{ id: 'evt_eu_00000001', type: 'payment.success' }], has_more: true }));
  const got = [];
  for await (const e of cursorItems((page) => client.GET('/v202607/events', { params: { query: page } }))) got.push(e.id);
  expect(got).toEqual(['evt_eu_00000001']);
  expect(urls[1].searchParams.get('starting_after')).toBe('evt_eu_00000001');
  const custom = cursorItems(async () => ({ data: { data: [{ k: 'a' }], has_more: true }, response: new Response(null) }), { idOf: (x) => x.k });
  expect((await custom.next()).value).toEqual({ k: 'a' });
});

test('page-numbered lists: pages 1..meta.totalPages', async () => {
  const { client, urls } = api((url) => {
    const page = Number(url.searchParams.get('page'));
    return { data: page <= 3 ? [{ uuid: `p${page}` }] : [], meta: { itemsPerPage: 1, totalItems: 3, currentPage: page, totalPages: 3, sortBy: [] }, links: {} };
  });
  const got = [];
  for await (const p of pageItems((page) => client.GET('/payouts', { params: { query: { page, limit: 1 } } }))) got.push(p.uuid);
  expect(got).toEqual(['p1', 'p2', 'p3']);
  expect(urls).toHaveLength(3);
});

test('commerce lists: pages 1..pagination.totalPages, items picked from the page', async () => {
  const { client } = api((url) => {
    const page = Number(url.searchParams.get('page'));
    return { returns: [{ id: `r${page}` }], pagination: { totalItems: 2, currentPage: page, pageSize: 1, totalPages: 2 } };
  });
  const got = [];
  for await (const r of paginationItems((page) => client.GET('/returns', { params: { query: { page: String(page), perPage: '1' } } }), (p) => p.returns)) got.push(r.id);
  expect(got).toEqual(['r1', 'r2']);
});

test('an empty list ends at once; an error is thrown as ApiError', async () => {
  const empty = api(() => ({ data: [], meta: { itemsPerPage: 20, totalItems: 0, currentPage: 1, totalPages: 0, sortBy: [] }, links: {} }));
  const none = [];
  for await (const p of pageItems((page) => empty.client.GET('/refunds', { params: { query: { page } } }))) none.push(p);
  expect(none).toEqual([]);
  const failing = api(() => ({ error: { type: 'invalid_request_error', code: 'parameter_invalid', message: 'bad', request_id: 'r' } }), 400);
  const it = cursorItems((page) => failing.client.GET('/v202607/refunds', { params: { query: page } }));
  await expect(it.next()).rejects.toBeInstanceOf(ApiError);
});
