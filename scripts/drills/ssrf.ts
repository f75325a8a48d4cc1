import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { documentedOperations, type DocumentedOperation } from '../../api/openapi/document';
import { exampleFor } from '../../api/openapi/examples';
import { allRoutes } from '../../api/routes';
import { postWebhook } from '../../activities/webhooks/http-send';
import { checkAddress } from '../../platform/ssrf';
import { createTenant, pad, request, say, startDrillStack, until } from './lib';
import { bind, FIRST_INTENT_WEBHOOK, newKnown, ok, populate } from './objects';

// SSRF drill: every place the document lets a merchant give a webhook URL, tried with forbidden targets
// (loopback, private, link-local, cloud metadata, in every spelling), on a stack whose webhook target policy
// is the production one (WEBHOOK_ALLOW_PRIVATE_HOSTS=false). Literal addresses must be refused at create;
// host names that resolve to forbidden addresses must be refused when the worker connects (a loopback
// listener counts every connection that gets through); redirects must never be followed.

/** Host spellings of forbidden addresses; WHATWG URL parsing turns several into dotted IPv4. */
const LITERAL_HOSTS = [
  // loopback, in decimal, octal, hex, short and mixed forms
  '127.0.0.1', '127.1', '127.0.1', '2130706433', '017700000001', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '0x7f.1', '127.000.000.001', '127.255.255.254',
  // unspecified, private, CGNAT, benchmark, broadcast, multicast
  '0.0.0.0', '0', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.1', '192.168.0.1', '192.168.1.1', '100.64.0.1', '198.18.0.1', '255.255.255.255', '224.0.0.1',
  // link-local and cloud metadata (AWS/GCP/Azure 169.254.169.254, ECS 169.254.170.2, Alibaba 100.100.100.200)
  '169.254.169.254', '169.254.170.2', '0xa9fea9fe', '2852039166', '0251.0376.0251.0376', '100.100.100.200',
  // IPv6: loopback, unspecified, IPv4-mapped (dotted and hex), IPv4-compatible, link-local, unique local,
  // AWS IMDS over IPv6, NAT64 and 6to4 forms of internal addresses
  '[::1]', '[0:0:0:0:0:0:0:1]', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::ffff:169.254.169.254]', '[::ffff:a9fe:a9fe]', '[::ffff:10.0.0.1]',
  '[::127.0.0.1]', '[fe80::1]', '[fc00::1]', '[fd00::1]', '[fd00:ec2::254]', '[64:ff9b::a9fe:a9fe]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]', '[2001::1]', '[ff02::1]',
];

/** Names that mean this machine whatever DNS says (RFC 6761): refused at create. */
const LOCAL_NAMES = ['localhost', 'LOCALHOST', 'localhost.', 'drill.localhost', 'a.b.localhost'];

/** Names in /etc/hosts (other than localhost) that resolve to a forbidden address: only DNS can tell. */
async function hostsFileNames(): Promise<string[]> {
  const names = new Set<string>();
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const parts = line.replace(/#.*/, '').trim().split(/\s+/);
    for (const n of parts.slice(1)) if (n && !/localhost/i.test(n)) names.add(n);
  }
  const out: string[] = [];
  for (const n of names) {
    const addrs = await lookup(n, { all: true }).catch(() => []);
    if (addrs.length && addrs.some((a) => !checkAddress(a.address, { allowPrivateHosts: false }).ok)) out.push(n);
  }
  return out;
}

/** A loopback TCP listener that counts connections (any is a finding) and answers nothing useful. */
async function tripwire(): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = net.createServer((s) => {
    hits++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

/** Where a webhook URL sits in an operation's example body. */
function webhookPlaces(op: DocumentedOperation): string[] {
  const out: string[] = [];
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'string') {
      if (/^https?:/.test(v) && (/webhook/i.test(p) || op.path.endsWith('/redeliver'))) out.push(p);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${p}.${i}`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
  };
  walk(exampleFor(op.def)?.body, '');
  return out;
}

function setAt(value: unknown, p: string, leaf: string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = p.split('.');
  let cur: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  cur[keys[keys.length - 1]!] = leaf;
  return copy;
}

/** Each idempotency key made unique, so a variant is judged on its own and not answered by an earlier create. */
function freshKeys(value: unknown, n: number): unknown {
  if (Array.isArray(value)) return value.map((v) => freshKeys(v, n));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, /idempotency/i.test(k) && typeof v === 'string' ? `${v}-drill-${n}` : freshKeys(v, n)]));
  return value;
}

export async function ssrfDrill(): Promise<number> {
  const findings: string[] = [];
  const wire = await tripwire();
  // The production webhook target policy: no private hosts. (https-only is production's too; every URL tried
  // is https, so what refuses them is the address, not the scheme.)
  const { stack } = await startDrillStack('ssrf', { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'false' });
  try {
    const api = stack.apiUrl;
    const EU = 'api-eu.drill.example';
    const ops = documentedOperations(allRoutes(), 'all');
    const T = await createTenant(stack, 'Drill SSRF tenant');
    const known = newKnown(T);
    await populate(stack, T, ops, known);
    const namesViaDns = await hostsFileNames();
    say(`/etc/hosts names that resolve to forbidden addresses: ${namesViaDns.join(', ') || 'none'}`);

    // ---- at create: every place x every literal and local name
    const places = ops.flatMap((op) => webhookPlaces(op).map((p) => ({ op, p })));
    say(`webhook URL places in the document: ${places.length}`);
    let n = 0;
    const perPlace: string[] = [];
    const tally = { tried: 0, refused: 0, acceptedForbidden: 0, notExercised: 0 };
    for (const { op, p } of places) {
      const key = op.def.auth === 'admin' ? stack.adminToken : T.secretKey;
      let base = bind(op, exampleFor(op.def), known, T.tenant);
      // The example as is (a public https URL) must be accepted, or the place is not exercised here.
      let control = await request(api, op.def.method, base.path, { key, host: EU, body: freshKeys(base.body, ++n) });
      // Redelivery names one of the event's own endpoints: the tenant's first intent's event and endpoint.
      for (const evt of op.path.endsWith('/redeliver') && !ok(control) ? (known.byPrefix.get('evt') ?? []) : []) {
        base = { ...base, path: base.path.replace(/evt_[a-z]+_[0-9A-Za-z]+/, evt), body: { url: FIRST_INTENT_WEBHOOK } };
        control = await request(api, op.def.method, base.path, { key, host: EU, body: base.body });
        if (ok(control)) break;
      }
      if (!ok(control)) {
        tally.notExercised++;
        perPlace.push(`${pad(`${op.def.method.toUpperCase()} ${op.path}`, 52)} ${pad(p, 18)} NOT EXERCISED (control request ${control.status}: ${control.text.slice(0, 120)})`);
        continue;
      }
      let refused = 0;
      let tried = 0;
      const codes = new Map<string, number>();
      for (const host of [...LITERAL_HOSTS, ...LOCAL_NAMES]) {
        tried++;
        const url = `https://${host}:${wire.port}/hook`;
        const r = await request(api, op.def.method, base.path, { key, host: EU, body: setAt(freshKeys(base.body, ++n), p, url) });
        const code = (r.body as { error?: { code?: string } } | null)?.error?.code ?? String(r.status);
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (r.status === 400 && /webhook|url/i.test(r.text)) refused++;
        else findings.push(`create accepted ${url} at ${op.def.method.toUpperCase()} ${op.path} ${p}: ${r.status} ${r.text.slice(0, 120)}`);
      }
      tally.tried += tried;
      tally.refused += refused;
      tally.acceptedForbidden += tried - refused;
      perPlace.push(`${pad(`${op.def.method.toUpperCase()} ${op.path}`, 52)} ${pad(p, 18)} tried ${tried}, refused at create ${refused} (${[...codes].map(([c, k]) => `${c} x${k}`).join(', ')})`);
    }
    say('\nat create (literal addresses and localhost names):');
    for (const l of perPlace) say(`  ${l}`);

    // ---- at send: names only DNS can judge, on real deliveries (intents paid, refunds made, redeliveries)
    const sendUrls = namesViaDns.map((h) => `https://${h}:${wire.port}/hook`);
    let sendRefused = 0;
    let sendTried = 0;
    for (const url of sendUrls) {
      const create = await request(api, 'POST', '/v202607/payment-intents', {
        key: T.secretKey,
        host: EU,
        body: { amount: 1200, currency: 'EUR', webhooks: [{ url, events: ['payment.success'] }] },
      });
      if (create.status !== 201) {
        findings.push(`send-time probe ${url}: create answered ${create.status} ${create.text.slice(0, 120)} (expected accepted: only DNS can judge a name)`);
        continue;
      }
      const pi = (create.body as { payment_intent: string }).payment_intent;
      const paid = await request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: T.publishableKey, host: EU, body: { token: 'tok_success' } });
      if (!ok(paid)) throw new Error(`pay ${pi}: ${paid.status} ${paid.text}`);
      sendTried++;
      const attempt = await until(
        `a delivery attempt to ${url}`,
        async () => {
          const list = await request(api, 'GET', `/v202607/events?type=payment.success`, { key: T.secretKey, host: EU });
          for (const ev of (list.body as { data: { id: string; data?: unknown }[] }).data ?? []) {
            if (!JSON.stringify(ev).includes(pi)) continue;
            const one = await request(api, 'GET', `/v202607/events/${ev.id}`, { key: T.secretKey, host: EU });
            const deliveries = (one.body as { deliveries?: { url: string; attempts: { error: string | null; outcome: string }[] }[] }).deliveries ?? [];
            const a = deliveries.find((d) => d.url === url)?.attempts[0];
            if (a) return a;
          }
          return undefined;
        },
        60_000,
      );
      if (attempt.outcome !== 'delivered' && (attempt.error ?? '').startsWith('ssrf_refused')) sendRefused++;
      else findings.push(`send-time ${url}: attempt ${JSON.stringify(attempt)}`);
      say(`  send ${url}: ${attempt.outcome} (${attempt.error ?? 'no error'})`);
    }

    // ---- redirects: the sender the worker uses, given an allowed target that answers 3xx to a forbidden one.
    // Loopback stands in for "allowed" here (allowPrivateHosts on for this call only), and a second loopback
    // listener for the forbidden target: it must see no request, whatever the status.
    let redirectTried = 0;
    let redirectRefused = 0;
    const target = await tripwire();
    const redirector = http.createServer((req, res) => {
      const status = Number(req.url?.slice(1)) || 302;
      res.writeHead(status, { location: `http://127.0.0.1:${target.port}/metadata` }).end();
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    const rport = (redirector.address() as net.AddressInfo).port;
    for (const status of [301, 302, 303, 307, 308]) {
      redirectTried++;
      const before = target.hits();
      const r = await postWebhook({ url: `http://127.0.0.1:${rport}/${status}`, body: '{}', headers: {}, timeoutMs: 5000, allowPrivateHosts: true });
      if (r.statusCode === status && target.hits() === before) redirectRefused++;
      else findings.push(`redirect ${status}: sender reported ${r.statusCode}, forbidden target hit ${target.hits() - before} times`);
    }
    redirector.close();
    await target.close();

    const wireHits = wire.hits();
    if (wireHits > 0) findings.push(`the loopback tripwire saw ${wireHits} connections`);
    say('\nsummary:');
    say(`  at create: ${tally.tried} forbidden URLs tried over ${places.length - tally.notExercised} places, ${tally.refused} refused (${tally.notExercised} places not exercised)`);
    say(`  at send (DNS names): ${sendTried} tried, ${sendRefused} refused`);
    say(`  redirects: ${redirectTried} tried, ${redirectRefused} not followed`);
    say(`  loopback tripwire connections: ${wireHits}`);
    for (const f of findings) say(`FINDING ${f}`);
    say(`\nssrf: ${tally.tried + sendTried + redirectTried} tried, ${tally.refused + sendRefused + redirectRefused} refused, ${findings.length} findings`);
    return findings.length > 0 || tally.notExercised > 0 ? 1 : 0;
  } finally {
    await stack.stop();
    await wire.close();
  }
}
