import { documentedOperations } from '../../api/openapi/document';
import { exampleFor } from '../../api/openapi/examples';
import { allRoutes } from '../../api/routes';
import { createTenant, pad, request, say, startDrillStack, type Tenant } from './lib';
import { bind, newKnown, ok, populate, tokens } from './objects';

// Access drill: every operation of the OpenAPI document (the same list api/openapi/document.ts builds the
// document from), called with tenant A's real ids under keys and hosts that must not reach them. A leak is a
// 2xx where the caller had no right to one, or a body that holds tenant A's ids the request did not carry.

type ProbeKind = 'cross' | 'region' | 'publishable' | 'revoked' | 'noclaim' | 'nokey';
const KINDS: ProbeKind[] = ['cross', 'region', 'publishable', 'revoked', 'noclaim', 'nokey'];

const hasData = (body: unknown) =>
  body !== null && body !== '' && !(typeof body === 'object' && Array.isArray((body as { data?: unknown }).data) && (body as { data: unknown[] }).data.length === 0);

export async function accessDrill(): Promise<number> {
  const { stack } = await startDrillStack('access');
  try {
    const api = stack.apiUrl;
    const ops = documentedOperations(allRoutes(), 'all');
    say(`operations in the document: ${ops.length}`);
    const A = await createTenant(stack, 'Drill tenant A');
    const B = await createTenant(stack, 'Drill tenant B');
    const EU = 'api-eu.drill.example';
    const known = newKnown(A);

    const { made, creates, missing } = await populate(stack, A, ops, known);
    const kinds = [...known.byPrefix.entries()].map(([p, l]) => `${p}:${l.length}`).join(' ');
    say(`tenant A ${A.tenant}: ${known.all.size} ids (${kinds}; ${[...known.loose.values()].reduce((n, s) => n + s.size, 0)} uuid/integer ids)`);
    say(`creates that made A objects: ${made.size} of ${creates.length} operations`);
    for (const m of missing) say(`not made: ${m}`);

    // A revoked key, and (for the claim probe) A's plain key has no claims: checked below.
    const extra = await request(api, 'POST', `/admin/tenants/${A.tenant}/api-keys`, { key: stack.adminToken, host: EU, body: { kind: 'secret' } });
    const revokedKey = (extra.body as { secret_key: string }).secret_key;
    const revoke = await request(api, 'POST', `/admin/tenants/${A.tenant}/api-keys/${(extra.body as { api_key: string }).api_key}/revoke`, { key: stack.adminToken, host: EU });
    if (revoke.status !== 200) throw new Error(`revoke: ${revoke.status} ${revoke.text}`);
    known.named.set('api_key', [(extra.body as { api_key: string }).api_key]);
    const tenantView = await request(api, 'GET', `/admin/tenants/${A.tenant}`, { key: stack.adminToken, host: EU });
    const aKeys = (tenantView.body as { api_keys: { claims: string[]; revoked: boolean }[] }).api_keys;
    if (aKeys.some((k) => !k.revoked && k.claims.includes('cards.mit'))) throw new Error('tenant A has a key with cards.mit: the no-claim probe would mean nothing');

    // ---- probes
    const tally = new Map<ProbeKind, { tried: number; refused: number; leaks: number; s5xx: number }>(KINDS.map((k) => [k, { tried: 0, refused: 0, leaks: 0, s5xx: 0 }]));
    const leaks: string[] = [];
    const errors5xx: string[] = [];
    const rows: string[] = [];
    let realIdOps = 0;
    const madeUpIdOps: string[] = [];
    for (const op of ops) {
      const ex = exampleFor(op.def);
      const claimRoute = JSON.stringify(ex ?? {}).includes('missing_claim');
      const probes: { kind: ProbeKind; key?: string; host: string }[] = [];
      if (op.def.auth === 'secret') {
        probes.push({ kind: 'cross', key: B.secretKey, host: EU });
        probes.push({ kind: 'region', key: A.secretKey, host: 'api-us.drill.example' });
        probes.push({ kind: 'publishable', key: A.publishableKey, host: EU });
        probes.push({ kind: 'revoked', key: revokedKey, host: EU });
        if (claimRoute) probes.push({ kind: 'noclaim', key: A.secretKey, host: EU });
        probes.push({ kind: 'nokey', host: EU });
      } else if (op.def.auth === 'admin') {
        probes.push({ kind: 'cross', key: B.secretKey, host: EU });
        probes.push({ kind: 'publishable', key: A.publishableKey, host: EU });
        probes.push({ kind: 'nokey', host: EU });
      } else {
        // Authenticated in the handler (a publishable key or client secret of the object's tenant), or open.
        probes.push({ kind: 'cross', key: B.publishableKey, host: EU });
        probes.push({ kind: 'nokey', host: EU });
      }
      // UUID/integer path params (older interface) are tried with each of A's such ids.
      const first = bind(op, ex, known, A.tenant);
      const looseCount = [...known.loose.values()].reduce((n, s) => n + s.size, 0);
      const variants = /\{(uuid|payment_intent|checkout_intent|transaction_id|id)\}/.test(op.path) && looseCount > 0 ? Math.min(looseCount, 6) : 1;
      if (first.ids > 0) {
        if (first.madeUp.length === 0) realIdOps++;
        else madeUpIdOps.push(`${op.def.method.toUpperCase()} ${op.path} (${first.madeUp.join(', ')})`);
      }
      const cells: string[] = [];
      for (const p of probes) {
        const statuses = new Set<number>();
        for (let v = 0; v < variants; v++) {
          const req = v === 0 ? first : bind(op, ex, known, A.tenant, v);
          const t = tally.get(p.kind)!;
          t.tried++;
          const r = await request(api, op.def.method, req.path, { key: p.key, body: req.body ?? (op.def.body ? {} : undefined), host: p.host });
          statuses.add(r.status);
          // A's ids the request itself carried may be echoed in an error message; any other is a leak.
          const carried = new Set(tokens(`${decodeURIComponent(req.path)} ${JSON.stringify(req.body ?? null)}`));
          const foreign = [...new Set(tokens(r.text))].filter((id) => known.all.has(id) && !carried.has(id));
          const refersToA = carried.size > 0 && [...carried].some((id) => known.all.has(id) && id !== A.tenant);
          // Another tenant's id in a path: any 2xx that acts (not a GET) or shows something is a leak. A GET
          // may answer an empty body for "not yours" (the older interface's documented `null`), or an empty
          // page for a list filtered by a foreign id.
          const actedOrShowed = op.def.method !== 'get' || hasData(r.body);
          const leak =
            (p.kind === 'cross' && op.def.auth !== 'admin' ? ok(r) && refersToA && actedOrShowed : ok(r) && op.def.auth !== 'none') || foreign.length > 0;
          if (leak) {
            t.leaks++;
            leaks.push(`${p.kind} ${op.def.method.toUpperCase()} ${req.path} -> ${r.status}${foreign.length ? ` holds A ids ${foreign.slice(0, 3).join(',')}` : ''}: ${r.text.slice(0, 160)}`);
          } else if (!ok(r) || op.def.auth === 'none' || p.kind === 'cross') t.refused++;
          if (r.status >= 500) {
            t.s5xx++;
            errors5xx.push(`${p.kind} ${op.def.method.toUpperCase()} ${req.path} -> ${r.status}: ${r.text.slice(0, 160)}`);
          }
        }
        cells.push(`${p.kind}:${[...statuses].join('/')}`);
      }
      rows.push(`${pad(op.def.method.toUpperCase(), 6)} ${pad(op.path, 62)} ${cells.join(' ')}`);
    }
    say('\nper operation (probe:status seen):');
    for (const r of rows) say(`  ${r}`);
    say('\nper probe kind:');
    for (const [k, t] of tally) say(`  ${pad(k, 12)} tried ${pad(t.tried, 5)} refused/clean ${pad(t.refused, 5)} leaks ${pad(t.leaks, 3)} 5xx ${t.s5xx}`);
    say(`operations with an id in their path: ${realIdOps + madeUpIdOps.length}, probed with A's real ids: ${realIdOps}, with a made-up id: ${madeUpIdOps.length}`);
    for (const m of madeUpIdOps) say(`  made-up id (A has no object of that kind): ${m}`);
    for (const l of leaks) say(`LEAK ${l}`);
    for (const e of errors5xx) say(`5XX ${e}`);
    const total = [...tally.values()].reduce((n, t) => n + t.tried, 0);
    say(`\naccess: ${total} probes over ${ops.length} operations, ${leaks.length} leaks, ${errors5xx.length} 5xx answers`);
    return leaks.length > 0 || errors5xx.length > 0 ? 1 : 0;
  } finally {
    await stack.stop();
  }
}

export type { Tenant };
