import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { MAX_RESPONSE_BYTES, postWebhook } from '../../../activities/webhooks/http-send';
import { receiverPool } from './receiver';

const BODY = '{"id":"evt_eu_1","type":"payment.success","created_at":"2026-01-01T00:00:00.000Z","data":{"amount":2500}}';
const send = (url: string, allowPrivateHosts: boolean, extra: { timeoutMs?: number } = {}) =>
  postWebhook({ url, body: BODY, headers: { 'Content-Type': 'application/json' }, timeoutMs: extra.timeoutMs ?? 5000, allowPrivateHosts });

const receiver = receiverPool();

describe('SSRF guard on a real socket', () => {
  it('refuses a literal loopback address before connecting', async () => {
    const r = await receiver();
    const res = await send(r.url('/hook', '127.0.0.1'), false);
    expect(res).toMatchObject({ statusCode: null, failure: 'ssrf_refused', detail: '127.0.0.1 is a loopback address' });
    expect(r.received).toHaveLength(0);
  });

  it('refuses a host name that resolves to loopback, at connect time', async () => {
    const r = await receiver();
    const res = await send(r.url('/hook', 'localhost'), false);
    expect(res).toMatchObject({ statusCode: null, failure: 'ssrf_refused' });
    expect(res.detail).toBe('localhost resolves to a loopback address');
    expect(r.received).toHaveLength(0);
  });

  it('delivers to that same host with allowPrivateHosts (local development)', async () => {
    const r = await receiver();
    const res = await send(r.url('/hook?x=1', 'localhost'), true);
    expect(res).toMatchObject({ statusCode: 200, failure: null, excerpt: 'ok', truncated: false });
    expect(r.received).toEqual([expect.objectContaining({ method: 'POST', path: '/hook?x=1', body: BODY })]);
    expect(r.received[0]!.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
  });

  it('refuses a literal IPv4-mapped loopback', async () => {
    const r = await receiver();
    const res = await send(`http://[::ffff:127.0.0.1]:${r.port}/hook`, false);
    expect(res.failure).toBe('ssrf_refused');
    expect(r.received).toHaveLength(0);
  });
});

describe('the HTTP exchange', () => {
  it('does not follow a redirect, even to an allowed target', async () => {
    const target = await receiver();
    const r = await receiver((_req, res) => {
      res.writeHead(302, { Location: target.url('/elsewhere') });
      res.end();
    });
    const res = await send(r.url(), true);
    expect(res).toMatchObject({ statusCode: 302, failure: null });
    expect(res.headers.location).toBe(target.url('/elsewhere'));
    expect(target.received).toHaveLength(0);
  });

  it('reads at most 64 KiB of the answer, then closes the connection', async () => {
    let written = 0;
    let closed: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // Streams without end until the client goes away.
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => closed());
      pump();
    });
    const res = await send(r.url(), true);
    expect(res).toMatchObject({ statusCode: 200, failure: null, truncated: true });
    expect(res.responseBytes).toBeGreaterThan(MAX_RESPONSE_BYTES);
    expect(res.responseBytes).toBeLessThanOrEqual(MAX_RESPONSE_BYTES + 64 * 1024);
    expect(res.excerpt).toBe('x'.repeat(200));
    await serverSawClose;
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('gives up when no answer comes within the timeout', async () => {
    const r = await receiver(() => {
      /* never answers */
    });
    const res = await send(r.url(), true, { timeoutMs: 300 });
    expect(res).toMatchObject({ statusCode: null, failure: 'timeout', detail: 'no response within 300 ms' });
    expect(res.latencyMs).toBeGreaterThanOrEqual(290);
  });

  it('reports a refused connection', async () => {
    // A port that was just free: bind, note, release.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const res = await send(`http://127.0.0.1:${port}/hook`, true);
    expect(res).toMatchObject({ statusCode: null, failure: 'connection', detail: 'ECONNREFUSED' });
  });

  it('reports the status and the start of the answer of a failing receiver', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(500);
      res.end('database down');
    });
    expect(await send(r.url(), true)).toMatchObject({ statusCode: 500, excerpt: 'database down', failure: null });
  });
});
