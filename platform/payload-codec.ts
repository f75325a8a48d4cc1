import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

// Workflow payloads (inputs, Update and Signal arguments, activity arguments and results, query answers)
// encrypted before they leave the process, so Temporal's database and its UI hold ciphertext. Each payload is
// sealed with AES-256-GCM under a key derived (HKDF-SHA256) from a master key and the payload's scope: the
// tenant it names (`tenantId` / `tenant_id` at its top level), else the platform. A codec has no workflow
// context, so the payload itself must say whose it is; what names no tenant (a gateway's answer, a timer's
// summary) is sealed under the platform scope. The scope and key id ride in plaintext metadata and are bound
// into the ciphertext (GCM additional data), so relabelling a payload with another tenant breaks it.

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const META_KEY_ID = 'encryption-key-id';
const META_SCOPE = 'encryption-scope';
export const PLATFORM_SCOPE = 'platform';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const text = new TextEncoder();
const untext = new TextDecoder();

export interface CodecKey {
  id: string;
  key: Buffer;
}

export class PayloadCodecError extends Error {}

/**
 * `PAYLOAD_CODEC_KEYS`: `id:base64,id:base64`, newest first. The first encrypts; every one decrypts, so a key
 * is rotated by putting a new one in front and removing the old one only once no open workflow needs it.
 */
export function parseCodecKeys(value: string): CodecKey[] {
  const keys = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(':');
      const id = entry.slice(0, at);
      const key = Buffer.from(entry.slice(at + 1), 'base64');
      if (at <= 0 || !/^[A-Za-z0-9._-]{1,32}$/.test(id)) throw new PayloadCodecError(`a key must be id:base64 with a short id of letters, digits, . _ or -`);
      if (key.length !== 32) throw new PayloadCodecError(`key ${id} must be 32 bytes (base64 of 32 random bytes), it is ${key.length}`);
      return { id, key };
    });
  if (keys.length === 0) throw new PayloadCodecError('no key given');
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new PayloadCodecError('key ids must differ');
  return keys;
}

/** The tenant a payload names, read from its JSON; null when it names none (or is not JSON). */
export function scopeOf(payload: Payload): string {
  const encoding = payload.metadata?.encoding ? untext.decode(payload.metadata.encoding) : '';
  if (encoding !== 'json/plain' || !payload.data) return PLATFORM_SCOPE;
  try {
    const value: unknown = JSON.parse(untext.decode(payload.data));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const o = value as Record<string, unknown>;
      const tenant = o.tenantId ?? o.tenant_id;
      if (typeof tenant === 'string' && /^ten_[A-Za-z0-9_]{1,64}$/.test(tenant)) return `tenant:${tenant}`;
    }
  } catch {
    /* not JSON after all: the platform's */
  }
  return PLATFORM_SCOPE;
}

export const isEncrypted = (p: Payload) => (p.metadata?.encoding ? untext.decode(p.metadata.encoding) : '') === ENCRYPTED_ENCODING;
/** The scope an encrypted payload was sealed under (plaintext metadata). */
export const sealedScope = (p: Payload) => (p.metadata?.[META_SCOPE] ? untext.decode(p.metadata[META_SCOPE]) : '');

export class TenantPayloadCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly current: CodecKey;
  private readonly derived = new Map<string, Buffer>();

  constructor(keys: CodecKey[]) {
    if (keys.length === 0) throw new PayloadCodecError('no key given');
    this.current = keys[0]!;
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
  }

  private keyFor(keyId: string, scope: string): Buffer {
    const cacheKey = `${keyId}\u0000${scope}`;
    let k = this.derived.get(cacheKey);
    if (!k) {
      const master = this.keys.get(keyId);
      if (!master) throw new PayloadCodecError(`payload sealed with unknown key ${keyId}`);
      k = Buffer.from(hkdfSync('sha256', master, 'payorch-payload-codec', scope, 32));
      this.derived.set(cacheKey, k);
    }
    return k;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.seal(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (isEncrypted(p) ? this.open(p) : p));
  }

  /** Opens only payloads whose scope `allowed` accepts; the rest are returned sealed (the codec server). */
  decodeAllowed(payloads: Payload[], allowed: (scope: string) => boolean): Payload[] {
    return payloads.map((p) => (isEncrypted(p) && allowed(sealedScope(p)) ? this.open(p) : p));
  }

  seal(p: Payload): Payload {
    if (isEncrypted(p)) return p;
    const scope = scopeOf(p);
    const { id } = this.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyFor(id, scope), iv);
    cipher.setAAD(text.encode(`${id}\u0000${scope}`));
    const plain = temporal.api.common.v1.Payload.encode(p).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: text.encode(ENCRYPTED_ENCODING), [META_KEY_ID]: text.encode(id), [META_SCOPE]: text.encode(scope) }, data: sealed };
  }

  open(p: Payload): Payload {
    const keyId = p.metadata?.[META_KEY_ID] ? untext.decode(p.metadata[META_KEY_ID]) : '';
    const scope = sealedScope(p);
    const data = Buffer.from(p.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadCodecError('encrypted payload too short');
    const decipher = createDecipheriv('aes-256-gcm', this.keyFor(keyId, scope), data.subarray(0, IV_BYTES));
    decipher.setAAD(text.encode(`${keyId}\u0000${scope}`));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadCodecError(`encrypted payload does not open under key ${keyId} for ${scope}: tampered or relabelled`);
    }
    const inner = temporal.api.common.v1.Payload.decode(plain);
    return { metadata: inner.metadata ?? {}, data: inner.data ?? new Uint8Array() };
  }
}
