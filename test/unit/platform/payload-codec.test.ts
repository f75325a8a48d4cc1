import { randomBytes } from 'node:crypto';
import { DefaultPayloadConverter, type Payload } from '@temporalio/common';
import { parseCodecOperators, mayRead, operatorByToken } from '../../../platform/codec-operators';
import { loadConfig } from '../../../platform/config';
import { isEncrypted, parseCodecKeys, PayloadCodecError, sealedScope, TenantPayloadCodec } from '../../../platform/payload-codec';

const converter = new DefaultPayloadConverter();
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const k1 = key('k1');
const k2 = key('k2');
const intentOf = (tenantId: string) => converter.toPayload({ id: 'pi_eu_1', tenantId, customer: 'cus_eu_1', metadata: { email: 'ada@example.com' } });
const textOf = (p: Payload) => Buffer.from(p.data!).toString('utf8');

test('a payload that names its tenant is sealed under that tenant, round trips, and shows nothing in clear', async () => {
  const codec = new TenantPayloadCodec(parseCodecKeys(k1));
  const [sealed] = await codec.encode([intentOf('ten_eu_a')]);
  expect(isEncrypted(sealed!)).toBe(true);
  expect(sealedScope(sealed!)).toBe('tenant:ten_eu_a');
  expect(textOf(sealed!)).not.toContain('ada@example.com');
  const [opened] = await codec.decode([sealed!]);
  expect(converter.fromPayload(opened!)).toEqual({ id: 'pi_eu_1', tenantId: 'ten_eu_a', customer: 'cus_eu_1', metadata: { email: 'ada@example.com' } });
});

test('a payload naming no tenant is sealed under the platform scope; tenant_id (records) counts as naming one', async () => {
  const codec = new TenantPayloadCodec(parseCodecKeys(k1));
  const [gatewayAnswer, record, scalar] = await codec.encode([converter.toPayload({ status: 'succeeded', chargeId: 'ch_1' }), converter.toPayload({ tenant_id: 'ten_eu_b' }), converter.toPayload(42)]);
  expect([sealedScope(gatewayAnswer!), sealedScope(record!), sealedScope(scalar!)]).toEqual(['platform', 'tenant:ten_eu_b', 'platform']);
});

test("relabelling tenant A's payload as tenant B's, or changing one byte, does not open", async () => {
  const codec = new TenantPayloadCodec(parseCodecKeys(k1));
  const [sealed] = await codec.encode([intentOf('ten_eu_a')]);
  const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, 'encryption-scope': Buffer.from('tenant:ten_eu_b') } };
  await expect(codec.decode([relabelled])).rejects.toThrow(PayloadCodecError);
  const data = Buffer.from(sealed!.data!);
  data[20] = data[20]! ^ 1;
  await expect(codec.decode([{ ...sealed!, data }])).rejects.toThrow(/tampered or relabelled/);
});

test('keys rotate: the newest seals, an older one still opens what it sealed, a dropped one is named when missing', async () => {
  const before = new TenantPayloadCodec(parseCodecKeys(k1));
  const [old] = await before.encode([intentOf('ten_eu_a')]);
  const rotated = new TenantPayloadCodec(parseCodecKeys(`${k2},${k1}`));
  const [fresh] = await rotated.encode([intentOf('ten_eu_a')]);
  expect(Buffer.from(fresh!.metadata!['encryption-key-id']!).toString()).toBe('k2');
  expect(converter.fromPayload((await rotated.decode([old!]))[0]!)).toMatchObject({ tenantId: 'ten_eu_a' });
  const dropped = new TenantPayloadCodec(parseCodecKeys(k2));
  await expect(dropped.decode([old!])).rejects.toThrow('unknown key k1');
});

test('plain payloads (histories from before the codec was on) pass through decode unchanged', async () => {
  const codec = new TenantPayloadCodec(parseCodecKeys(k1));
  const plain = intentOf('ten_eu_a');
  expect((await codec.decode([plain]))[0]).toBe(plain);
});

test('the codec server opens only the scopes an operator may read', async () => {
  const codec = new TenantPayloadCodec(parseCodecKeys(k1));
  const sealed = await codec.encode([intentOf('ten_eu_a'), intentOf('ten_eu_b'), converter.toPayload({ status: 'succeeded' })]);
  const ops = parseCodecOperators(`nadia:${'n'.repeat(24)}:ten_eu_a,omar:${'o'.repeat(24)}:*`);
  const nadia = operatorByToken(ops, 'n'.repeat(24))!;
  const out = codec.decodeAllowed(sealed, (scope) => mayRead(nadia, scope));
  expect(out.map(isEncrypted)).toEqual([false, true, true]);
  expect(codec.decodeAllowed(sealed, (scope) => mayRead(operatorByToken(ops, 'o'.repeat(24))!, scope)).map(isEncrypted)).toEqual([false, false, false]);
  expect(operatorByToken(ops, 'x'.repeat(24))).toBeNull();
});

test('config: the codec needs valid keys, operators need long tokens and real scopes', () => {
  expect(() => loadConfig({ NODE_ENV: 'test', PAYLOAD_CODEC: 'aes-256-gcm' })).toThrow('PAYLOAD_CODEC_KEYS: is required with PAYLOAD_CODEC=aes-256-gcm');
  expect(() => loadConfig({ NODE_ENV: 'test', PAYLOAD_CODEC: 'aes-256-gcm', PAYLOAD_CODEC_KEYS: `k1:${randomBytes(16).toString('base64')}` })).toThrow('must be 32 bytes');
  expect(loadConfig({ NODE_ENV: 'test', PAYLOAD_CODEC: 'aes-256-gcm', PAYLOAD_CODEC_KEYS: k1 }).PAYLOAD_CODEC).toBe('aes-256-gcm');
  expect(() => loadConfig({ NODE_ENV: 'test', CODEC_OPERATORS: 'nadia:short:ten_eu_a' })).toThrow('at least 24 characters');
  expect(() => loadConfig({ NODE_ENV: 'test', CODEC_OPERATORS: `nadia:${'n'.repeat(24)}:everyone` })).toThrow('neither * nor a tenant id');
  expect(loadConfig({ NODE_ENV: 'test' }).PAYLOAD_CODEC).toBe('off');
});
