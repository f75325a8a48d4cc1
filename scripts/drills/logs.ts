import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { documentedOperations } from '../../api/openapi/document';
import { allRoutes } from '../../api/routes';
import { FIXED_TOKENS } from '../../sandbox/cards';
import { createTenant, pad, request, say, startDrillStack, until } from './lib';
import { newKnown, ok, populate } from './objects';

// Logs drill: a representative run (every create of the document replayed, a card entered at the gateway
// and saved, a merchant-initiated charge, refunds, signed webhook deliveries, refused requests carrying keys
// and a card number), then every log line the processes wrote scanned for secrets: the exact values this
// run handled, and the shapes of keys, webhook secrets, tokens, Authorization headers and card numbers.
// DRILL_SCAN_DIRS (colon-separated) adds directories to scan, e.g. the logs a test run left.

const PAN = '4242424242424242';

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A digit run that is a time (epoch ms or ns within a few years of now), not a card. */
function isEpoch(run: string): boolean {
  const now = Date.now();
  const span = 5 * 365 * 86_400_000;
  if (run.length === 13) return Math.abs(Number(run) - now) < span;
  if (run.length === 19) return Math.abs(Number(run.slice(0, 13)) - now) < span;
  return false;
}

interface Pattern {
  name: string;
  re: RegExp;
  /** Drop matches that are harmless (a fixed test token's name, a redaction marker). */
  keep?: (m: string) => boolean;
}

const PATTERNS: Pattern[] = [
  { name: 'secret key sk_', re: /\bsk_[a-z]{2,8}_[0-9A-Za-z]{40,}/g },
  { name: 'publishable key pk_', re: /\bpk_[a-z]{2,8}_[0-9A-Za-z]{40,}/g },
  { name: 'webhook signing secret whsec_', re: /\bwhsec_[A-Za-z0-9+/=]{16,}/g },
  { name: 'endpoint secret whk_', re: /\bwhk_[A-Za-z0-9]{8,}/g },
  { name: 'client secret pics_', re: /\bpics_[0-9a-f]{32,}/g },
  { name: 'card token tok_', re: /\btok_[A-Za-z0-9_]{6,}/g, keep: (m) => !Object.hasOwn(FIXED_TOKENS, m) },
  { name: 'reusable token pmt_', re: /\bpmt_[A-Za-z0-9_]{6,}/g },
  { name: 'Authorization header', re: /"?authorization"?\s*[:=]\s*"?(?!\[redacted\])[A-Za-z]+\s+[^\s",]+/gi },
  { name: 'Bearer credential', re: /\bBearer\s+(?!\[redacted\])[A-Za-z0-9_.-]{12,}/g },
  { name: 'card number (Luhn, 13-19 digits)', re: /(?<![0-9A-Za-z_])[0-9]{13,19}(?![0-9A-Za-z_])/g, keep: (m) => luhn(m) && !isEpoch(m) && !/^(\d)\1+$/.test(m) },
];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : /\.(log|txt|json|jsonl|out)$/.test(n) ? [p] : [];
  });
}

export function scanLogs(files: string[], exact: Record<string, string>) {
  const counts = new Map<string, number>([...PATTERNS.map((p) => [p.name, 0] as [string, number]), ...Object.keys(exact).map((k) => [`exact: ${k}`, 0] as [string, number])]);
  const samples: string[] = [];
  let lines = 0;
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      lines++;
      for (const p of PATTERNS) {
        const hits = (line.match(p.re) ?? []).filter((m) => p.keep?.(m) ?? true);
        if (hits.length === 0) continue;
        counts.set(p.name, counts.get(p.name)! + hits.length);
        if (samples.length < 20) samples.push(`${path.basename(file)} [${p.name}] ${line.slice(0, 240)}`);
      }
      for (const [name, value] of Object.entries(exact)) {
        if (!value || !line.includes(value)) continue;
        counts.set(`exact: ${name}`, counts.get(`exact: ${name}`)! + 1);
        if (samples.length < 20) samples.push(`${path.basename(file)} [exact ${name}] ${line.slice(0, 240)}`);
      }
    }
  }
  return { counts, samples, lines };
}

export async function logsDrill(): Promise<number> {
  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`;
  // Debug level: the most the processes ever write.
  const { stack, logDir } = await startDrillStack('logs', { LOG_LEVEL: 'debug' });
  const exact: Record<string, string> = { 'admin token': stack.adminToken, 'card number': PAN };
  try {
    const api = stack.apiUrl;
    const EU = 'api-eu.drill.example';
    const T = await createTenant(stack, 'Drill logs tenant');
    Object.assign(exact, { 'secret key': T.secretKey, 'publishable key': T.publishableKey });
    const known = newKnown(T);
    const ops = documentedOperations(allRoutes(), 'all');
    await populate(stack, T, ops, known);

    const signing = await request(api, 'GET', `/admin/tenants/${T.tenant}/webhook-signing-secret`, { key: stack.adminToken, host: EU });
    exact['signing secret'] = (signing.body as { secret: string }).secret;
    const rotated = await request(api, 'POST', `/admin/tenants/${T.tenant}/webhook-signing-secret/rotate`, { key: stack.adminToken, host: EU });
    exact['rotated signing secret'] = (rotated.body as { secret?: string }).secret ?? '';
    const mit = await request(api, 'POST', `/admin/tenants/${T.tenant}/api-keys`, { key: stack.adminToken, host: EU, body: { kind: 'secret', claims: ['cards.mit'] } });
    exact['cards.mit key'] = (mit.body as { secret_key: string }).secret_key;

    // A card entered as the browser would, at the gateway, then a customer-present payment that saves it.
    const token = await request(stack.sandboxUrl, 'POST', '/v1/tokens', { body: { number: PAN, exp_month: 12, exp_year: 2034, cvc: '123' } });
    const tok = (token.body as { id?: string; token?: string }).id ?? (token.body as { token?: string }).token ?? '';
    exact['minted card token'] = tok;
    const endpointSecret = 'whk_DrillEndpointSecret42';
    exact['endpoint secret'] = endpointSecret;
    const customer = await request(api, 'POST', '/v202607/customers', { key: T.secretKey, host: EU, body: { email: 'drill@example.com', reference: `drill-${Date.now()}` } });
    const cus = (customer.body as { customer?: string }).customer;
    const intent = await request(api, 'POST', '/v202608/payment-intents', {
      key: T.secretKey,
      host: EU,
      body: {
        amount: 4200,
        currency: 'EUR',
        ...(cus ? { customer: cus, setup_future_usage: 'off_session' } : {}),
        webhooks: [{ url: hook, secret: endpointSecret, events: ['payment.success', 'refund.success'] }],
      },
    });
    if (!ok(intent)) throw new Error(`intent: ${intent.status} ${intent.text}`);
    const ib = intent.body as { payment_intent: string; client_secret?: string };
    if (ib.client_secret) exact['client secret'] = ib.client_secret;
    const paid = await request(api, 'POST', `/v202607/payment-intents/${ib.payment_intent}/attempts`, { key: ib.client_secret ?? T.publishableKey, host: EU, body: { token: tok || 'tok_success', ...(cus ? { save_payment_method: true } : {}) } });
    say(`  card payment: ${paid.status}`);
    await until('the card payment', async () => {
      const r = await request(api, 'GET', `/v202607/payment-intents/${ib.payment_intent}`, { key: T.secretKey, host: EU });
      return (r.body as { status?: string }).status === 'success' ? r.body : undefined;
    }, 60_000);
    const refund = await request(api, 'POST', '/v202607/refunds', { key: T.secretKey, host: EU, body: { payment_intent: ib.payment_intent, amount: 1000, currency: 'EUR', webhooks: [{ url: hook, secret: endpointSecret, events: ['refund.success'] }] } });
    say(`  refund: ${refund.status}`);
    // Refused requests that carry secrets: a wrong key, a key in a query, a card number in a body.
    await request(api, 'GET', '/v202607/payment-intents', { key: `${T.secretKey.slice(0, -4)}AAAA`, host: EU });
    await request(api, 'GET', `/v202607/payment-intents?api_key=${encodeURIComponent(T.secretKey)}`, { host: EU });
    await request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 'x', card_number: PAN, metadata: { note: PAN } } });
    await until('webhook deliveries', async () => (received.length >= 2 ? true : undefined), 60_000).catch(() => undefined);
    say(`  webhook deliveries received: ${received.length}`);
  } finally {
    await stack.stop();
    receiver.close();
  }
  // The scanner itself first: one planted line per shape must be found, or a clean result means nothing.
  const planted = path.join(logDir, '..', 'planted.txt');
  writeFileSync(
    planted,
    [
      `{"k":"sk_eu_${'a'.repeat(60)}"}`, `pk_eu_${'b'.repeat(60)}`, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whk_9fT2LmQ8xPz4Rk7V',
      `pics_${'0'.repeat(64)}`, 'tok_4f9a8b7c6d5e', 'pmt_4f9a8b7c6d5e', '"authorization":"Bearer abc.def"', 'Bearer sk_live_abcdefghijkl', `card ${PAN} x`,
    ].join('\n'),
  );
  const check = scanLogs([planted], {});
  const blind = PATTERNS.filter((p) => !(check.counts.get(p.name)! > 0)).map((p) => p.name);
  if (blind.length) throw new Error(`the scanner misses planted ${blind.join(', ')}`);
  say(`scanner self-check: ${PATTERNS.length} of ${PATTERNS.length} planted shapes found`);
  const dirs = [logDir, ...(process.env.DRILL_SCAN_DIRS ?? '').split(':').filter(Boolean)];
  const files = dirs.flatMap(filesUnder);
  const { counts, samples, lines } = scanLogs(files, exact);
  say(`\nscanned ${lines} lines in ${files.length} files of ${dirs.length} directories (this run's: ${logDir}):`);
  for (const [name, n] of counts) say(`  ${pad(name, 36)} ${n}`);
  for (const s of samples) say(`FOUND ${s}`);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  say(`\nlogs: ${total} secrets found`);
  return total > 0 ? 1 : 0;
}
