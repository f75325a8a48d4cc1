import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { createApp } from '../../../api/app';
import type { AppDeps } from '../../../api/deps';
import { answerClientErrors, answerToClientError } from '../../../api/http/client-errors';
import { createApiMetrics } from '../../../api/http/metrics';
import { route, type RouteDef } from '../../../api/http/route';
import { checkBody, MAX_BODY_DEPTH } from '../../../api/http/well-formed-body';
import { loadConfig } from '../../../platform/config';
import { createLogger } from '../../../platform/logger';

// How the API reads a request before any route sees it: JSON in UTF-8, a coding it decodes, text that is
// Unicode, nesting within a bound; and the requests Node's own parser refuses, answered in the error shape.
// A real app on loopback, with routes that echo what they were given.

const routes: RouteDef[] = [
  route({
    method: 'post',
    path: '/echo',
    versions: ['v202607'],
    auth: 'none',
    summary: 'test',
    tags: [],
    body: z.record(z.string(), z.unknown()),
    responses: { 200: { description: 'ok' } },
    handler: async ({ body }) => ({ status: 200, body: { received: body } }),
  }),
  route({ method: 'get', path: '/things', versions: ['v202607'], auth: 'none', summary: 'test', tags: [], responses: { 200: { description: 'ok' } }, handler: async () => ({ status: 200, body: { data: [] } }) }),
  route({ method: 'post', path: '/things', versions: ['v202607'], auth: 'none', summary: 'test', tags: [], responses: { 201: { description: 'ok' } }, handler: async () => ({ status: 201, body: {} }) }),
  // One path, two methods from two versions: a later version serves both, the earlier's by fallback.
  route({ method: 'put', path: '/things/:id/cancel', versions: ['v202502'], auth: 'none', summary: 'test', tags: [], responses: { 200: { description: 'ok' } }, handler: async () => ({ status: 200, body: {} }) }),
  route({ method: 'post', path: '/things/:id/cancel', versions: ['v202607'], auth: 'none', summary: 'test', tags: [], responses: { 200: { description: 'ok' } }, handler: async () => ({ status: 200, body: {} }) }),
];

const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' });
const deps = { config, logger: createLogger({ name: 'test', level: 'silent' }), metrics: createApiMetrics() } as unknown as AppDeps;

let server: Server;
let base: string;
beforeAll(async () => {
  server = createApp(deps, routes).listen(0, '127.0.0.1');
  answerClientErrors(server);
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** An answer's body: an error in the shape, or what the echo route received. */
interface Answer {
  error: { code: string; message: string; param?: string; request_id: string };
  received?: unknown;
}

async function post(body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/v202607/echo`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as Answer, headers: res.headers };
}

const shape = (code: string, param?: string) => ({
  error: { type: 'invalid_request_error', code, message: expect.any(String), ...(param ? { param } : {}), request_id: expect.stringMatching(/^req_/) },
});

describe('charset: JSON is read as UTF-8, and only UTF-8 is accepted', () => {
  test.each(['iso-8859-1', 'utf-16', 'latin1', 'bogus', '"windows-1252"'])('charset=%s is 415 saying send UTF-8', async (charset) => {
    const r = await post('{"name":"caf\u00e9"}', { 'content-type': `application/json; charset=${charset}` });
    expect(r.status).toBe(415);
    expect(r.body).toEqual(shape('unsupported_media_type'));
    expect(r.body.error.message).toMatch(/UTF-8/);
  });

  test.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset="utf8"'])('%s is read', async (type) => {
    const r = await post('{"name":"caf\u00e9 \ud83d\ude42"}', { 'content-type': type });
    expect([r.status, r.body]).toEqual([200, { received: { name: 'caf\u00e9 \ud83d\ude42' } }]);
  });

  test('bytes that are not UTF-8 are 400 malformed_json saying so, not replaced by U+FFFD', async () => {
    for (const bad of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x99]]) {
      const r = await post(Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bad), Buffer.from('"}')]));
      expect(r.status).toBe(400);
      expect(r.body).toEqual(shape('malformed_json'));
      expect(r.body.error.message).toMatch(/not valid UTF-8/);
    }
  });

  test('a U+FFFD the client sent as UTF-8, and a leading BOM, are fine', async () => {
    const r = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"\ufffd"}')]));
    expect([r.status, r.body]).toEqual([200, { received: { name: '\ufffd' } }]);
  });
});

describe('lone surrogates: text that is not well-formed Unicode is refused, naming where', () => {
  test.each([
    ['{"name":"\\ud800"}', 'name'],
    ['{"customer":{"first_name":"x\\udc00y"}}', 'customer[first_name]'],
    ['{"items":[{"n":"ok"},{"n":"\\ud800"}]}', 'items[1][n]'],
    ['{"metadata":{"a\\ud800":"1","a\\udc00":"2"}}', 'metadata'], // a key: the object holding it
    ['{"a":[[["\\udfff\\ud800"]]]}', 'a[0][0][0]'], // a pair in the wrong order is two lone ones
  ])('%s is 400 parameter_invalid, param %s', async (raw, param) => {
    const r = await post(raw);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(shape('parameter_invalid', param));
    expect(r.body.error.message).toMatch(/not well-formed Unicode \(a lone UTF-16 surrogate/);
  });

  test('of several, the first in the body is named', async () => {
    expect((await post('{"a":"ok","b":{"c":"\\ud800"},"d":"\\udc00"}')).body).toEqual(shape('parameter_invalid', 'b[c]'));
  });

  test('a key at the top of the body: no param, the message says so', async () => {
    const r = await post('{"k\\ud800":"v"}');
    expect(r.body).toEqual(shape('parameter_invalid'));
    expect(r.body.error.message).toMatch(/^The request body has a key that is not well-formed Unicode/);
  });

  test('a surrogate pair, escaped or not, is one character and is accepted', async () => {
    const r = await post('{"emoji":"\\ud83d\\ude42","raw":"\ud83d\ude42"}');
    expect([r.status, r.body]).toEqual([200, { received: { emoji: '\ud83d\ude42', raw: '\ud83d\ude42' } }]);
  });
});

describe(`nesting: at most ${MAX_BODY_DEPTH} levels of objects and arrays`, () => {
  const nested = (levels: number) => `{"payload":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

  test(`${MAX_BODY_DEPTH} levels (the body counts as one) pass`, async () => {
    expect((await post(nested(MAX_BODY_DEPTH))).status).toBe(200);
  });

  test.each([MAX_BODY_DEPTH + 1, 5_000, 400_000])('%d levels are 400 naming the top-level field, never 500', async (levels) => {
    const r = await post(nested(levels));
    expect(r.status).toBe(400);
    expect(r.body).toEqual(shape('parameter_invalid', 'payload'));
    expect(r.body.error.message).toMatch(/deeper than 64 levels/);
  });

  test('a body that is itself deep names no field', () => {
    expect(() => checkBody(JSON.parse('['.repeat(100) + ']'.repeat(100)))).toThrow(expect.objectContaining({ code: 'parameter_invalid', param: undefined }));
  });
});

describe('Content-Encoding: gzip and deflate are decoded, anything else is 415', () => {
  const body = JSON.stringify({ name: 'zipped \u00e9' });

  test.each([
    ['gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
    ['identity', Buffer.from(body)],
  ])('%s is read', async (coding, bytes) => {
    const r = await post(bytes, { 'content-encoding': coding });
    expect([r.status, r.body]).toEqual([200, { received: { name: 'zipped \u00e9' } }]);
  });

  test.each(['br', 'zstd', 'compress', 'gzip, br'])('%s is 415 unsupported_encoding', async (coding) => {
    const r = await post(coding === 'br' ? brotliCompressSync(body) : body, { 'content-encoding': coding });
    expect(r.status).toBe(415);
    expect(r.body).toEqual(shape('unsupported_encoding'));
    expect(r.body.error.message).toMatch(/gzip or deflate/);
  });

  test('a gzip body over 1 MB once inflated is 413; one that does not inflate is 400', async () => {
    const bomb = await post(gzipSync(JSON.stringify({ a: 'x'.repeat(2 * 1024 * 1024) })), { 'content-encoding': 'gzip' });
    expect([bomb.status, bomb.body]).toEqual([413, shape('payload_too_large')]);
    const broken = await post(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    expect([broken.status, broken.body]).toEqual([400, shape('malformed_json')]);
  });
});

describe('what the body reader answered before, it still does', () => {
  test('malformed JSON 400, another media type 415, over 1 MB 413, an empty body is no body', async () => {
    expect(await post('{"a":')).toMatchObject({ status: 400, body: shape('malformed_json') });
    expect(await post('a=1', { 'content-type': 'text/plain' })).toMatchObject({ status: 415, body: shape('unsupported_media_type') });
    expect(await post(JSON.stringify({ a: 'x'.repeat(1024 * 1024) }))).toMatchObject({ status: 413, body: shape('payload_too_large') });
    expect(await post('')).toMatchObject({ status: 200, body: { received: {} } });
  });

  test("a '__proto__' key, or 'constructor' with 'prototype', is 400 naming the object holding it", async () => {
    for (const raw of ['{"metadata":{"__proto__":"1"}}', '{"metadata":{"constructor":{"prototype":{}}}}']) {
      const r = await post(raw);
      expect([r.status, r.body]).toEqual([400, shape('parameter_invalid', 'metadata')]);
      expect(r.body.error.message).toMatch(/__proto__/);
    }
    expect((await post('{"metadata":{"constructor":"c"}}')).status).toBe(200);
  });
});

test('a 405 lists HEAD in Allow wherever GET is allowed, and HEAD is served', async () => {
  const r = await fetch(`${base}/v202607/things`, { method: 'PUT' });
  expect(r.status).toBe(405);
  expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
  expect(((await r.json()) as Answer).error.message).toBe('PUT is not allowed here; use GET or POST');
  expect((await fetch(`${base}/v202607/things`, { method: 'HEAD' })).status).toBe(200);
  expect((await fetch(`${base}/v202607/echo`, { method: 'GET' })).headers.get('allow')).toBe('POST');
});

test("a 405's Allow lists every method the path serves in that version, those served by an earlier version's fallback too", async () => {
  const answer = async (method: string, version: string) => {
    const r = await fetch(`${base}/${version}/things/t1/cancel`, { method });
    return [r.status, r.headers.get('allow')];
  };
  expect(await answer('DELETE', 'v202607')).toEqual([405, 'POST, PUT']);
  expect(await answer('PUT', 'v202607')).toEqual([200, null]);
  expect(await answer('DELETE', 'v202608')).toEqual([405, 'POST, PUT']);
  // Before v202607 only the earlier version's method is served.
  expect(await answer('DELETE', 'v202606')).toEqual([405, 'PUT']);
  expect(await answer('POST', 'v202606')).toEqual([405, 'PUT']);
});

describe("requests Node's HTTP parser refuses are answered in the error shape", () => {
  /** Writes raw bytes, reads until the server closes. */
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(request);
    });
  const split = (response: string) => {
    const [head, body] = response.split('\r\n\r\n');
    return { head: head!, body: JSON.parse(body!) };
  };

  test('a request line over the 16 KB header limit is 431 in the shape, not a bare status line', async () => {
    const r = await fetch(`${base}/v202607/payment-intents/pi_eu_${'x'.repeat(20_000)}`);
    expect(r.status).toBe(431);
    expect(r.headers.get('content-type')).toBe('application/json');
    const body = (await r.json()) as Answer;
    expect(body).toEqual(shape('request_header_too_large'));
    expect(body.error.message).toMatch(/larger than the limit of 16 KB/);
    expect(r.headers.get('request-id')).toBe(body.error.request_id);
  });

  test('headers over the limit, on a raw connection: a complete HTTP/1.1 answer, and the connection closed', async () => {
    const { head, body } = split(await raw(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`));
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(head).toMatch(new RegExp(`\r\nContent-Length: ${Buffer.byteLength(JSON.stringify(body))}(\r\n|$)`));
    expect(body).toEqual(shape('request_header_too_large'));
  });

  test('any other request the parser cannot read is 400 malformed_request in the shape', async () => {
    const { head, body } = split(await raw('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Line\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(body).toEqual(shape('malformed_request'));
    expect(body.error.message).toMatch(/HPE_/);
  });

  test('a request not received in time is 408, chunk extensions over the limit 413', () => {
    expect(answerToClientError('ERR_HTTP_REQUEST_TIMEOUT', 'req_x')).toMatchObject({ status: 408, body: { error: { code: 'request_timeout' } } });
    expect(answerToClientError('HPE_CHUNK_EXTENSIONS_OVERFLOW', 'req_x')).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
  });
});
