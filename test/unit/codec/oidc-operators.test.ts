import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefaultPayloadConverter } from '@temporalio/common';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { loadCodecConfig } from '../../../codec/config';
import { createCodecServer } from '../../../codec/server';
import { oidcOperators } from '../../../platform/codec-oidc';
import { parseCodecOperators } from '../../../platform/codec-operators';
import { isEncrypted, parseCodecKeys, TenantPayloadCodec } from '../../../platform/payload-codec';

// The Temporal UI behind single sign-on passes the user's OIDC access token to the codec server. A loopback
// issuer here publishes its discovery document and key set; tokens it signs are taken for the scopes their
// claim lists, and nothing else is: another key, another issuer or audience, an expired token, HS256.

const converter = new DefaultPayloadConverter();
const AUDIENCE = 'temporal-ui';
const intentOf = (tenantId: string) => converter.toPayload({ id: 'pi_eu_1', tenantId, metadata: { email: 'ada@example.com' } });

let issuer: string;
let server: http.Server;
let codecUrl: string;
let codecListener: http.Server;
let jwksServed = true;
const jwksHits = { discovery: 0, keys: 0 };
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
const audit: { operator: string | null; opened: number; path?: string; status?: number }[] = [];

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey as CryptoKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey as CryptoKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = http.createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      jwksHits.discovery++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    } else if (req.url === '/keys' && jwksServed) {
      jwksHits.keys++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    } else res.writeHead(503).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const codec = new TenantPayloadCodec(parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`));
  const app = createCodecServer({
    codec,
    operators: parseCodecOperators(`cli:${'c'.repeat(32)}:ten_eu_b`),
    oidc: oidcOperators({ issuer, audience: AUDIENCE, scopesClaim: 'payorch_codec_scopes' }),
    corsOrigins: [],
    audit: (line) => audit.push({ operator: line.operator, opened: line.opened, path: line.path, status: line.status }),
  });
  codecListener = app.listen(0, '127.0.0.1');
  await new Promise((r) => codecListener.once('listening', r));
  codecUrl = `http://127.0.0.1:${(codecListener.address() as AddressInfo).port}`;
  sealed = (await codec.encode([intentOf('ten_eu_a'), intentOf('ten_eu_b')])).map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
    data: Buffer.from(p.data!).toString('base64'),
  }));
});

afterAll(async () => {
  await new Promise((r) => codecListener.close(r));
  await new Promise((r) => server.close(r));
});

let sealed: { metadata: Record<string, string>; data: string }[];

function token(claims: Record<string, unknown>, opts: { key?: CryptoKey; iss?: string; aud?: string; exp?: string | number } = {}) {
  return new SignJWT({ email: 'nadia@ops.example', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(opts.iss ?? issuer)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject('user-1')
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '5m')
    .sign(opts.key ?? signingKey);
}

async function decode(bearer: string) {
  const r = await fetch(`${codecUrl}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ payloads: sealed }),
  });
  const body = (await r.json()) as { payloads?: { metadata: Record<string, string>; data: string }[]; error?: { code: string } };
  const opened = body.payloads?.map((p) => !isEncrypted({ metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])) }));
  return { status: r.status, code: body.error?.code, opened };
}

test("a signed-in operator's access token opens the tenants its scopes claim lists, and only those", async () => {
  expect(await decode(await token({ payorch_codec_scopes: ['ten_eu_a'] }))).toEqual({ status: 200, code: undefined, opened: [true, false] });
  // A space-separated claim (as `scope` is) works too; entries that are neither * nor a tenant id are ignored.
  expect((await decode(await token({ payorch_codec_scopes: 'ten_eu_b temporal-admin' }))).opened).toEqual([false, true]);
  expect((await decode(await token({ payorch_codec_scopes: ['*'] }))).opened).toEqual([true, true]);
  // Signed in, but no scopes: authenticated, everything stays sealed.
  expect(await decode(await token({}))).toEqual({ status: 200, code: undefined, opened: [false, false] });
  expect(audit.at(-1)).toMatchObject({ operator: 'oidc:nadia@ops.example', opened: 0 });
  // The key set is fetched once (discovery, then the keys), not per request.
  expect(jwksHits).toEqual({ discovery: 1, keys: 1 });
});

test('tokens that do not verify are refused as an unknown operator', async () => {
  const refused = { status: 401, code: 'operator_token_invalid', opened: undefined };
  const scopes = { payorch_codec_scopes: ['*'] };
  expect(await decode(await token(scopes, { key: strangerKey }))).toEqual(refused);
  expect(await decode(await token(scopes, { iss: 'https://other-issuer.example' }))).toEqual(refused);
  expect(await decode(await token(scopes, { aud: 'another-app' }))).toEqual(refused);
  expect(await decode(await token(scopes, { exp: Math.floor(Date.now() / 1000) - 120 }))).toEqual(refused);
  // A shared-secret signature is never taken, even one made with the public key's bytes.
  const hs = await new SignJWT(scopes).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).setIssuer(issuer).setAudience(AUDIENCE).setExpirationTime('5m').sign(randomBytes(32));
  expect(await decode(hs)).toEqual(refused);
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...scopes, iss: issuer, aud: AUDIENCE, exp: 9e9 })).toString('base64url')}.`;
  expect(await decode(unsigned)).toEqual(refused);
  // Static operator tokens still work beside sign-on.
  expect((await decode('c'.repeat(32))).opened).toEqual([false, true]);
});

test('an operator seals only payloads of the tenants it may open; refusals are audited', async () => {
  const encode = async (bearer: string, tenantId: string) => {
    const p = intentOf(tenantId);
    const r = await fetch(`${codecUrl}/encode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ payloads: [{ metadata: Object.fromEntries(Object.entries(p.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])), data: Buffer.from(p.data!).toString('base64') }] }),
    });
    return { status: r.status, code: ((await r.json()) as { error?: { code: string } }).error?.code };
  };
  const cli = 'c'.repeat(32); // scoped to ten_eu_b
  expect(await encode(cli, 'ten_eu_b')).toEqual({ status: 200, code: undefined });
  expect(await encode(cli, 'ten_eu_a')).toEqual({ status: 403, code: 'scope_not_allowed' });
  expect(audit.at(-1)).toEqual({ operator: 'cli', opened: 0, path: '/encode', status: 403 });
  expect(await encode(await token({ payorch_codec_scopes: ['*'] }), 'ten_eu_a')).toEqual({ status: 200, code: undefined });
  // Input naming no tenant (an operator's stamp on a signal or Update) is the platform's: any operator seals it.
  expect(await encode(cli, 'not-a-tenant')).toEqual({ status: 200, code: undefined });
  expect((await decode('not-a-token')).status).toBe(401);
  expect(audit.at(-1)).toEqual({ operator: null, opened: 0, path: '/decode', status: 401 });
});

test("the issuer's keys out of reach answer 503 (retry), not 401", async () => {
  const fresh = createCodecServer({
    codec: new TenantPayloadCodec(parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`)),
    operators: [],
    oidc: oidcOperators({ issuer, audience: AUDIENCE, scopesClaim: 'payorch_codec_scopes', jwksUrl: `${issuer}/keys` }),
    corsOrigins: [],
  }).listen(0, '127.0.0.1');
  await new Promise((r) => fresh.once('listening', r));
  jwksServed = false;
  try {
    const r = await fetch(`http://127.0.0.1:${(fresh.address() as AddressInfo).port}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await token({ payorch_codec_scopes: ['*'] })}` },
      body: JSON.stringify({ payloads: [] }),
    });
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  } finally {
    jwksServed = true;
    await new Promise((r) => fresh.close(r));
  }
});

test('config: sign-on may stand instead of static operators, and needs its audience', () => {
  const base = { PAYLOAD_CODEC: 'aes-256-gcm', PAYLOAD_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}` };
  expect(() => loadCodecConfig(base)).toThrow('CODEC_OPERATORS: is required unless CODEC_OIDC_ISSUER');
  expect(() => loadCodecConfig({ ...base, CODEC_OIDC_ISSUER: 'https://sso.example' })).toThrow('CODEC_OIDC_AUDIENCE: is required');
  expect(loadCodecConfig({ ...base, CODEC_OIDC_ISSUER: 'https://sso.example', CODEC_OIDC_AUDIENCE: AUDIENCE })).toMatchObject({ CODEC_OIDC_SCOPES_CLAIM: 'payorch_codec_scopes' });
});
