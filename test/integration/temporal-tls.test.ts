import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../platform/config';
import { temporalConnectionOptions } from '../../platform/temporal';
import { forkTs, freePort, type Proc } from '../../scripts/stack';
import { api, createMerchant, getStack, listening } from './harness';

// The Temporal connection as production makes it (platform/temporal.ts): TLS with a private CA, a client
// certificate (mTLS), a server name that is not the address's host, and an API key, through a TLS gateway
// in front of the stack's Temporal that checks all of them as Temporal Cloud's would (client certificate
// signed by the CA, `Authorization: Bearer <key>`). Both SDK connections (the API's client, the worker's
// native one) go through it, and a second API process configured only by environment creates a payment.

const SERVER_NAME = 'temporal.payorch.test';
const API_KEY = 'tk_test_0123456789abcdef';
let dir: string;
let gateway: http2.Http2SecureServer;
let gatewayAddress: string;
const sessions = new Set<http2.ServerHttp2Session>();
const files = { ca: '', cert: '', key: '', otherCert: '', otherKey: '' };

function openssl(args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate for SERVER_NAME, a client certificate from the CA and one from another CA. */
function makeCertificates(): void {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=payorch test CA', '-keyout', 'ca.key', '-out', 'ca.pem']);
  writeFileSync(path.join(dir, 'server.ext'), `subjectAltName=DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth\n`);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${SERVER_NAME}`, '-keyout', 'server.key', '-out', 'server.csr']);
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'server.ext', '-out', 'server.pem']);
  writeFileSync(path.join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=payorch worker', '-keyout', 'client.key', '-out', 'client.csr']);
  openssl(['x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'client.ext', '-out', 'client.pem']);
  // A self-signed client certificate: well formed, but not from the CA the gateway trusts.
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=stranger', '-keyout', 'other.key', '-out', 'other.pem']);
  Object.assign(files, {
    ca: path.join(dir, 'ca.pem'),
    cert: path.join(dir, 'client.pem'),
    key: path.join(dir, 'client.key'),
    otherCert: path.join(dir, 'other.pem'),
    otherKey: path.join(dir, 'other.key'),
  });
}

/**
 * An HTTP/2 TLS endpoint that requires a client certificate from our CA and the API key, and passes each
 * gRPC call on to the stack's Temporal frontend (plaintext on loopback), answers and trailers included.
 */
async function startGateway(upstreamAddress: string): Promise<void> {
  const upstream = http2.connect(`http://${upstreamAddress}`);
  gateway = http2.createSecureServer({
    key: readFileSync(path.join(dir, 'server.key')),
    cert: readFileSync(path.join(dir, 'server.pem')),
    ca: readFileSync(files.ca),
    requestCert: true,
    rejectUnauthorized: true,
    ALPNProtocols: ['h2'],
  });
  gateway.on('stream', (stream, headers) => {
    if (headers.authorization !== `Bearer ${API_KEY}`) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'missing or wrong API key' }, { endStream: true });
      return;
    }
    const out: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) if (k !== ':authority' && k !== ':scheme') out[k] = v;
    const up = upstream.request(out);
    stream.pipe(up);
    let trailers: http2.IncomingHttpHeaders = {};
    up.on('trailers', (t) => (trailers = t));
    up.on('response', (h) => {
      const { ':status': status, ...rest } = h;
      // A trailers-only answer (an error) carries grpc-status in its headers and ends there.
      if (h['grpc-status'] !== undefined) return stream.respond({ ':status': status, ...rest }, { endStream: true });
      stream.respond({ ':status': status, ...rest }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      up.pipe(stream);
    });
    up.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('error', () => up.close(http2.constants.NGHTTP2_CANCEL));
  });
  gateway.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  gateway.on('close', () => upstream.close());
  const port = await freePort();
  await new Promise<void>((resolve) => gateway.listen(port, '127.0.0.1', resolve));
  gatewayAddress = `127.0.0.1:${(gateway.address() as AddressInfo).port}`;
}

const tlsEnv = () => ({
  TEMPORAL_ADDRESS: gatewayAddress,
  TEMPORAL_TLS_CA_PATH: files.ca,
  TEMPORAL_TLS_CERT_PATH: files.cert,
  TEMPORAL_TLS_KEY_PATH: files.key,
  TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
  TEMPORAL_API_KEY: API_KEY,
});
const optionsFor = (env: Record<string, string>) => temporalConnectionOptions(loadConfig({ NODE_ENV: 'test', ...env }));

async function namespaceVia(env: Record<string, string>): Promise<string> {
  const conn = await Connection.connect({ ...optionsFor(env), connectTimeout: '3s' });
  try {
    const ns = await conn.workflowService.describeNamespace({ namespace: 'default' });
    return ns.namespaceInfo?.name ?? '';
  } finally {
    await conn.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-temporal-tls-'));
  makeCertificates();
  await startGateway(getStack().temporalAddress);
});

afterAll(async () => {
  // close() waits for open sessions; clients that were refused or closed may leave theirs half open.
  for (const s of sessions) s.destroy();
  await new Promise((r) => gateway?.close(r));
});

describe('Temporal connection: TLS, mTLS and an API key from the environment', () => {
  test("the API's client connects with the CA, client certificate, server name and API key", async () => {
    expect(await namespaceVia(tlsEnv())).toBe('default');
  });

  test("the worker's native connection connects with the same settings", async () => {
    const conn = await NativeConnection.connect(optionsFor(tlsEnv()));
    try {
      const ns = await conn.workflowService.describeNamespace({ namespace: 'default' });
      expect(ns.namespaceInfo?.name).toBe('default');
    } finally {
      await conn.close();
    }
  });

  test('without the API key the call is refused (UNAUTHENTICATED)', async () => {
    const { TEMPORAL_API_KEY: _key, ...env } = tlsEnv();
    // Connection.connect checks the server at once; the gateway's UNAUTHENTICATED is the cause.
    await expect(namespaceVia(env)).rejects.toMatchObject({ cause: { code: 16 } });
  });

  test('a client certificate from another CA, or none, does not get through the handshake', async () => {
    await expect(namespaceVia({ ...tlsEnv(), TEMPORAL_TLS_CERT_PATH: files.otherCert, TEMPORAL_TLS_KEY_PATH: files.otherKey })).rejects.toThrow();
    const { TEMPORAL_TLS_CERT_PATH: _c, TEMPORAL_TLS_KEY_PATH: _k, ...noCert } = tlsEnv();
    await expect(namespaceVia(noCert)).rejects.toThrow();
  });

  test("without the private CA, or with the address's own host name, the server is not trusted", async () => {
    const { TEMPORAL_TLS_CA_PATH: _ca, ...noCa } = tlsEnv();
    await expect(namespaceVia(noCa)).rejects.toThrow();
    const { TEMPORAL_TLS_SERVER_NAME: _sn, ...noName } = tlsEnv();
    await expect(namespaceVia(noName)).rejects.toThrow();
  });

  test('a certificate path that cannot be read stops the start, naming the variable', () => {
    expect(() => optionsFor({ ...tlsEnv(), TEMPORAL_TLS_CA_PATH: path.join(dir, 'missing.pem') })).toThrow(/TEMPORAL_TLS_CA_PATH: cannot read .*missing\.pem \(ENOENT\)/);
  });

  test('configuration refuses half an mTLS pair and TLS turned off while a key or certificate is given', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', TEMPORAL_TLS_CERT_PATH: files.cert })).toThrow(/TEMPORAL_TLS_KEY_PATH: TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together/);
    expect(() => loadConfig({ NODE_ENV: 'test', TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: API_KEY })).toThrow(/TEMPORAL_TLS: is false while TLS settings or TEMPORAL_API_KEY are given/);
    // Plain connections stay plain: no TLS unless asked for or implied.
    expect(optionsFor({ TEMPORAL_ADDRESS: '127.0.0.1:7233' })).toEqual({ address: '127.0.0.1:7233' });
    expect(optionsFor({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS: 'true' })).toEqual({ address: 'x:7233', tls: {} });
  });
});

describe('an API process configured for the TLS gateway by environment alone', () => {
  let proc: Proc;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    proc = forkTs('api-temporal-tls', 'api/main.ts', { ...getStack().env, PORT: String(port), ...tlsEnv() }, dir);
    await listening(proc, 60_000);
    url = `http://127.0.0.1:${port}`;
  }, 90_000);
  afterAll(async () => {
    await proc?.stop();
  });

  test('creates a payment intent (its workflow started through the gateway) and reads it back', async () => {
    const m = await createMerchant('TLS shop', { apiUrl: url, adminToken: getStack().adminToken });
    const created = await fetch(`${url}/v202607/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1234, currency: 'EUR' }),
    });
    expect(created.status).toBe(201);
    const intent = (await created.json()) as { payment_intent: string; status: string };
    expect(intent.status).toBe('pending');
    // Read through the shared API (plain connection): the same workflow, run by the shared worker.
    const read = await api.get(`/v202607/payment-intents/${intent.payment_intent}`, m.secretKey);
    expect(read.status).toBe(200);
    expect(read.body.amount).toBe(1234);
  });
});
