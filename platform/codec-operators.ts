import { createHash, timingSafeEqual } from 'node:crypto';

// Who the codec server decodes for. Each operator has a token (sent by the Temporal UI as a bearer token) and
// the scopes they may read: tenant ids, or `*` for every tenant and the platform's own payloads.

/** Who asks, and which scopes they may read: a static operator or a signed-in one (platform/codec-oidc.ts). */
export interface Reader {
  name: string;
  scopes: Set<string>;
}

export interface CodecOperator extends Reader {
  tokenHash: Buffer;
}

const hash = (token: string) => createHash('sha256').update(token).digest();

/** `CODEC_OPERATORS`: `name:token:scope+scope,...`. */
export function parseCodecOperators(value: string): CodecOperator[] {
  const ops = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, token, scopes, ...rest] = entry.split(':');
      if (!name || !token || !scopes || rest.length) throw new Error('each operator is name:token:scope+scope');
      if (token.length < 24) throw new Error(`operator ${name}: the token must be at least 24 characters`);
      const list = scopes.split('+').filter(Boolean);
      for (const s of list) if (s !== '*' && !/^ten_[A-Za-z0-9_]{1,64}$/.test(s)) throw new Error(`operator ${name}: scope ${s} is neither * nor a tenant id`);
      return { name, tokenHash: hash(token), scopes: new Set(list) };
    });
  if (new Set(ops.map((o) => o.name)).size !== ops.length) throw new Error('operator names must differ');
  return ops;
}

/** The operator a bearer token belongs to (compared by hash, in constant time), or null. */
export function operatorByToken(ops: CodecOperator[], token: string): CodecOperator | null {
  const h = hash(token);
  return ops.find((o) => timingSafeEqual(o.tokenHash, h)) ?? null;
}

/** Whether an operator may read a payload sealed under `scope` (`tenant:<id>` or `platform`). */
export function mayRead(op: Reader, scope: string): boolean {
  if (op.scopes.has('*')) return true;
  return scope.startsWith('tenant:') && op.scopes.has(scope.slice('tenant:'.length));
}
