import { documentedOperations } from '../../api/openapi/document';
import { newId } from '../../platform/ids';
import type { Stack } from '../stack';
import { exampleFor } from '../../api/openapi/examples';
import { allRoutes } from '../../api/routes';
import { createTenant, gatewayEffects, isLive, keyOwner, request, runStrandedSweep, say, startDrillStack, until, withDbAndTemporal, type Reply } from './lib';
import { bind, newKnown, ok, populate } from './objects';

// Crash drill: the worker SIGKILLed DRILL_KILLS times (default 10; the issue asks 50) at random points while
// charges, refunds and payouts are in flight, restarted each time. Then: every operation the API accepted
// reaches its final state (0 lost), and the gateway sandbox shows at most one effect per charge, refund and
// payout (0 duplicates: its /v1/effects lists every effect with the idempotency key it was made under).
// Last, the stranded-records sweep is killed between its deletes and its second look: the next attempt
// settles what it held (the records gone, their webhook secrets removed, nothing left held).

const KILLS = Number(process.env.DRILL_KILLS ?? 10);
const INTENTS_PER_ROUND = 3;

interface Op {
  kind: 'charge' | 'refund' | 'payout';
  id: string | null;
  accepted: boolean;
  detail: string;
}

const final = (status: string | undefined) => !!status && !status.startsWith('pending') && status !== 'requires_payment' && status !== 'processing';

export async function crashDrill(): Promise<number> {
  const { stack } = await startDrillStack('crash');
  const findings: string[] = [];
  try {
    const api = stack.apiUrl;
    const EU = 'api-eu.drill.example';
    const T = await createTenant(stack, 'Drill crash tenant');
    const known = newKnown(T);
    const ops = documentedOperations(allRoutes(), 'all');
    await populate(stack, T, ops, known);
    const payoutOp = ops.find((o) => o.def.method === 'post' && o.path === '/payouts')!;
    const payoutReq = bind(payoutOp, exampleFor(payoutOp.def), known, T.tenant);
    const sent: Op[] = [];
    const paid: string[] = [];
    const refunded = new Set<string>();
    const restartTimes: number[] = [];
    let n = 0;

    const retrying = async (what: string, f: () => Promise<Reply>): Promise<Reply> => {
      let last: Reply | Error = new Error('not tried');
      for (let i = 0; i < 4; i++) {
        last = await f().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
        if (!(last instanceof Error) && last.status < 500) return last;
        await new Promise((r) => setTimeout(r, 2000));
      }
      if (last instanceof Error) throw new Error(`${what}: ${last.message}`);
      return last;
    };

    const charge = async () => {
      const c = await retrying('create intent', () => request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 1000 + (++n % 500), currency: 'EUR', idempotency_key: `crash-${n}` } }));
      const pi = (c.body as { payment_intent?: string }).payment_intent ?? null;
      const op: Op = { kind: 'charge', id: pi, accepted: false, detail: '' };
      sent.push(op);
      if (!pi) return void (op.detail = `create ${c.status}`);
      // An attempt is retried only while the API cannot answer (5xx): the workflow refuses a second success.
      const a = await retrying('attempt', () => request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: T.publishableKey, host: EU, body: { token: 'tok_success' }, timeoutMs: 90_000 }));
      op.accepted = ok(a);
      op.detail = `attempt ${a.status}`;
    };
    const refund = async (pi: string) => {
      const r = await retrying('refund', () => request(api, 'POST', '/v202607/refunds', { key: T.secretKey, host: EU, body: { payment_intent: pi, amount: 300, currency: 'EUR', idempotency_key: `crash-refund-${pi}` }, timeoutMs: 90_000 }));
      sent.push({ kind: 'refund', id: (r.body as { refund?: string }).refund ?? null, accepted: ok(r), detail: `refund ${r.status} ${ok(r) ? '' : r.text.slice(0, 100)}` });
    };
    const payout = async () => {
      const body = { ...(payoutReq.body as Record<string, unknown>), idempotency_key: `crash-payout-${++n}`, webhook_urls: [] };
      const r = await retrying('payout', () => request(api, 'POST', '/payouts', { key: T.secretKey, host: EU, body, timeoutMs: 90_000 }));
      sent.push({ kind: 'payout', id: (r.body as { payout_uuid?: string }).payout_uuid ?? null, accepted: ok(r), detail: `payout ${r.status} ${ok(r) ? '' : r.text.slice(0, 100)}` });
    };

    for (let round = 1; round <= KILLS; round++) {
      const toRefund = paid.splice(0, 2);
      for (const pi of toRefund) refunded.add(pi);
      const inFlight = Promise.allSettled([
        ...Array.from({ length: INTENTS_PER_ROUND }, charge),
        ...toRefund.map(refund),
        payout(),
      ]);
      // A random point of the round: before, during or after the gateway calls.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1500)));
      await stack.procs.worker!.stop('SIGKILL');
      const t0 = Date.now();
      await stack.startWorker();
      restartTimes.push(Date.now() - t0);
      const results = await inFlight;
      for (const r of results) if (r.status === 'rejected') findings.push(`round ${round}: ${String(r.reason)}`);
      for (const op of sent) if (op.kind === 'charge' && op.accepted && op.id && !paid.includes(op.id) && !refunded.has(op.id)) paid.push(op.id);
      say(`  round ${round}/${KILLS}: worker killed and back in ${restartTimes[restartTimes.length - 1]} ms; ${sent.length} operations so far`);
    }

    // ---- every accepted operation reaches its final state
    const statusOf = async (op: Op): Promise<string | undefined> => {
      const path = op.kind === 'charge' ? `/v202607/payment-intents/${op.id}` : op.kind === 'refund' ? `/v202607/refunds/${op.id}` : `/payouts/${op.id}`;
      const r = await request(api, 'GET', path, { key: T.secretKey, host: EU });
      return (r.body as { status?: string } | null)?.status;
    };
    const accepted = sent.filter((o) => o.accepted && o.id);
    const notAccepted = sent.filter((o) => !o.accepted);
    for (const o of notAccepted) findings.push(`not accepted: ${o.kind} ${o.id ?? ''} ${o.detail}`);
    const states = new Map<string, string>();
    await until(
      'every accepted operation final',
      async () => {
        for (const op of accepted) {
          if (final(states.get(op.id!))) continue;
          const s = await statusOf(op);
          if (s) states.set(op.id!, s);
        }
        return accepted.every((o) => final(states.get(o.id!))) ? true : undefined;
      },
      180_000,
    ).catch(() => undefined);
    const lost = accepted.filter((o) => !final(states.get(o.id!)));
    for (const o of lost) findings.push(`lost: ${o.kind} ${o.id} still ${states.get(o.id!) ?? 'unknown'}`);
    const wrong = accepted.filter((o) => final(states.get(o.id!)) && !['success', 'succeeded', 'partially_refunded', 'refunded'].includes(states.get(o.id!)!));

    // ---- the gateway's effects: at most one succeeded charge per intent, one refund and one payout per id
    const effects = await gatewayEffects(stack.sandboxUrl);
    let duplicates = 0;
    let matched = 0;
    for (const op of accepted) {
      const mine = effects.filter((e) => keyOwner(e) === op.id);
      const moving = mine.filter((e) => e.kind === op.kind || (op.kind === 'charge' && e.kind === 'charge'));
      const succeeded = moving.filter(isLive);
      if (succeeded.length === 0) findings.push(`no live gateway effect for ${op.kind} ${op.id} (${mine.length} effects under its key)`);
      else matched++;
      if (succeeded.length > 1) {
        duplicates++;
        findings.push(`duplicate gateway effect: ${op.kind} ${op.id}: ${JSON.stringify(succeeded)}`);
      }
    }
    const replays = effects.reduce((n, e) => n + e.replays, 0);
    const byKind = (k: string) => accepted.filter((o) => o.kind === k).length;
    say('\nsummary:');
    say(`  worker SIGKILLs: ${KILLS}; restart to ready: median ${median(restartTimes)} ms, max ${Math.max(...restartTimes)} ms`);
    say(`  operations accepted: ${accepted.length} (charges ${byKind('charge')}, refunds ${byKind('refund')}, payouts ${byKind('payout')}); not accepted: ${notAccepted.length}`);
    say(`  final states: ${[...new Set(accepted.map((o) => `${o.kind}:${states.get(o.id!)}`))].join(' ')}`);
    say(`  lost: ${lost.length}; final but not a success: ${wrong.length}`);
    say(`  gateway effects: ${effects.length} in all (incl. the setup's); drill operations with exactly one live effect: ${matched - duplicates} of ${accepted.length}; duplicates: ${duplicates}; replays answered from a key: ${replays}`);
    for (const o of wrong) findings.push(`ended ${states.get(o.id!)}: ${o.kind} ${o.id}`);
    await sweepKilledInItsWait(stack, sent.find((o) => o.kind === 'charge' && o.id)?.id ?? null, findings);
    for (const f of findings) say(`FINDING ${f}`);
    say(`\ncrash: ${findings.length} findings`);
    return findings.length > 0 ? 1 : 0;
  } finally {
    await stack.stop();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}

const STRANDED = 20;

/**
 * STRANDED intents planted as a create leaves them when its start failed (version 0, an hour old, each with a
 * webhook secret of its own); the sweep run with a 20 s second look; the worker SIGKILLed once the sweep has
 * deleted them all (it is then waiting), and restarted. The activity's next attempt (after its 1 min heartbeat
 * timeout) must settle every one: record gone, secret removed, no copy left in `stranded_taken_back`.
 */
async function sweepKilledInItsWait(stack: Stack, templateId: string | null, findings: string[]): Promise<void> {
  if (!templateId) return void findings.push('sweep kill: no intent to copy');
  await withDbAndTemporal(stack, async (db, client) => {
    const template = await db.collection('payment_intents').findOne({ _id: templateId } as never);
    if (!template) return void findings.push(`sweep kill: no intent ${templateId} to copy`);
    const hourAgo = new Date(Date.now() - 3600_000);
    const ids: string[] = [];
    const secretIds: string[] = [];
    for (let i = 0; i < STRANDED; i++) {
      const id = newId('pi', 'eu');
      const secret = newId('whs', 'eu');
      await db.collection('webhook_secrets').insertOne({ _id: secret, tenant_id: template.tenant_id, secrets: ['whsec-drill'], created_at: hourAgo } as never);
      // As a create inserts it: nothing paid, no attempt.
      const { _id, transactions, succeeded_at, amount_paid, amount_refunded, gateway_charge_id, connector_used, ...rest } = template;
      await db.collection('payment_intents').insertOne({
        ...rest,
        _id: id,
        status: 'pending',
        version: 0,
        created_at: hourAgo,
        idempotency_key: null,
        idempotency_scope: `${template.tenant_id}:drill-stranded:${id}`,
        webhooks: [{ url: 'https://shop.example/hooks', events: ['payment.succeeded'], secretRef: `${secret}#0` }],
      } as never);
      ids.push(id);
      secretIds.push(secret);
    }
    const t0 = Date.now();
    const run = runStrandedSweep(stack, client, 'sweep-kill', { olderThanSeconds: 60, recheckAfterMs: 20_000 });
    const held = () => db.collection('stranded_taken_back').countDocuments({ 'record._id': { $in: ids } } as never);
    const standing = () => db.collection('payment_intents').countDocuments({ _id: { $in: ids } } as never);
    await until('the sweep holding all it deleted', async () => ((await held()) === STRANDED && (await standing()) === 0 ? true : undefined), 60_000);
    const killedAt = Date.now() - t0;
    await stack.procs.worker!.stop('SIGKILL');
    await stack.startWorker();
    const outcome = await run;
    const tookMs = Date.now() - t0;
    const left = { records: await standing(), held: await held(), secrets: await db.collection('webhook_secrets').countDocuments({ _id: { $in: secretIds } } as never) };
    say(
      `\nsweep killed in its wait: ${STRANDED} stranded intents held and deleted, worker SIGKILLed ${killedAt} ms after the sweep began; ` +
        `it ended after ${tookMs} ms having taken back ${outcome.payment_intent.takenBack}; left: ${left.records} records, ${left.held} held copies, ${left.secrets} of their webhook secrets`,
    );
    if (left.records || left.held || left.secrets) findings.push(`sweep kill: ${left.records} records, ${left.held} held copies and ${left.secrets} webhook secrets left`);
  }).catch((err: unknown) => void findings.push(`sweep kill: ${String(err)}`));
}
