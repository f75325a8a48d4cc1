import type { Stack } from '../stack';
import { workflowExistence } from '../../platform/temporal';
import { createTenant, gatewayEffects, keyOwner, request, runStrandedSweep, say, startDrillStack, until, withDbAndTemporal, type Reply } from './lib';
import { ok } from './objects';

// Outage drill: Temporal, then FerretDB, SIGKILLed while DRILL_OUTAGE_CALLERS callers (8) keep creating and
// reading intents, with DRILL_OUTAGE_INFLIGHT (20) intents made to expire during the outage, as many payments
// and as many refunds sent just before the kill; restarted on the same port and data after those deadlines
// have passed. Findings: any 500 (or a 5xx outside the error shape) while a server is down, an intent the API
// accepted that is gone or stuck afterwards, an expiry timer that did not fire, a payment or refund in
// flight that did not complete (one answered 503 is retried as the error says: the same request again).
// Beside the callers, who wait for each answer, an open loop can send DRILL_OUTAGE_OPEN_RATE creates a second
// (0: off) on a clock, whatever the answers, from the kill until the server is back, so requests pile up:
// each must answer 2xx or 503 in the error shape, and one not answered 2xx, sent again with its key after the
// restart, must then be created.

const EXPIRY_S = 4;
const CALLERS = Number(process.env.DRILL_OUTAGE_CALLERS ?? 8);
const INFLIGHT = Number(process.env.DRILL_OUTAGE_INFLIGHT ?? 20);
/**
 * Creates a second sent on a clock from the kill until the server is back, whatever the answers. Off (0) by
 * default: at 10, one of its runs had a finding not yet explained (docs/reliability.md, section 5).
 */
const OPEN_RATE = Number(process.env.DRILL_OUTAGE_OPEN_RATE ?? 0);

interface OpenSend {
  key: string;
  answer: Promise<Reply | null>;
}

interface Seen {
  statuses: Map<number, number>;
  bad: string[];
}

const errorShaped = (r: Reply) => {
  const e = (r.body as { error?: { type?: unknown; code?: unknown; message?: unknown; request_id?: unknown } } | null)?.error;
  return !!e && typeof e.type === 'string' && typeof e.code === 'string' && typeof e.message === 'string' && typeof e.request_id === 'string';
};

/** What no outage may answer: a 500, or any 5xx outside the error shape. */
const badFiveHundred = (r: Reply) => r.status === 500 || (r.status >= 500 && !errorShaped(r));

export async function outageDrill(): Promise<number> {
  const { stack } = await startDrillStack('outage');
  const findings: string[] = [];
  try {
    const api = stack.apiUrl;
    const EU = 'api-eu.drill.example';
    const T = await createTenant(stack, 'Drill outage tenant');
    const get = (path: string) => request(api, 'GET', path, { key: T.secretKey, host: EU, timeoutMs: 90_000 });
    const statusOf = async (pi: string) => ((await get(`/v202607/payment-intents/${pi}`)).body as { status?: string }).status;

    for (const server of ['temporal', 'ferretdb'] as const) {
      say(`\n${server}:`);
      const seen: Seen = { statuses: new Map(), bad: [] };
      const acceptedDuringOutage: string[] = [];
      let loading = true;
      let down = false;
      let k = 0;
      // Callers sending creates and reads, as merchants' backends would keep sending them.
      const caller = async () => {
        while (loading) {
          const during = down;
          const create = await request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 700, currency: 'EUR', idempotency_key: `outage-${server}-${++k}` }, timeoutMs: 90_000 }).catch(() => null);
          const read = await get('/v202607/payment-intents?limit=3').catch(() => null);
          for (const r of [create, read]) {
            if (!r || !(during || down)) continue;
            seen.statuses.set(r.status, (seen.statuses.get(r.status) ?? 0) + 1);
            if (badFiveHundred(r)) seen.bad.push(`${r.status} ${r.text.slice(0, 160)}`);
          }
          if (create && (during || down) && ok(create)) acceptedDuringOutage.push((create.body as { payment_intent: string }).payment_intent);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const callers = Array.from({ length: CALLERS }, () => caller());
      const opened: OpenSend[] = [];
      const openCreate = (key: string) =>
        request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 600, currency: 'EUR', idempotency_key: key }, timeoutMs: 90_000 });
      // Started at the kill and stopped once the server is back, so every send is one made while it was down.
      let ticker: NodeJS.Timeout | null = null;
      const openLoop = () => {
        const key = `outage-${server}-open-${opened.length}`;
        opened.push({ key, answer: openCreate(key).catch(() => null) });
      };

      // Intents whose deadline passes during the outage, and payments in flight when it starts.
      const expiring: string[] = [];
      for (let i = 0; i < INFLIGHT; i++) {
        const r = await request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 800 + i, currency: 'EUR', timeout: EXPIRY_S } });
        if (r.status !== 201) throw new Error(`expiring intent: ${r.status} ${r.text}`);
        expiring.push((r.body as { payment_intent: string }).payment_intent);
      }
      const toPay: string[] = [];
      for (let i = 0; i < INFLIGHT; i++) {
        const r = await request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 900 + i, currency: 'EUR' } });
        toPay.push((r.body as { payment_intent: string }).payment_intent);
      }
      // Paid intents whose refunds are sent just before the kill (each with its idempotency key).
      const toRefund: string[] = [];
      for (let i = 0; i < INFLIGHT; i++) {
        const r = await request(api, 'POST', '/v202607/payment-intents', { key: T.secretKey, host: EU, body: { amount: 1000 + i, currency: 'EUR' } });
        const pi = (r.body as { payment_intent: string }).payment_intent;
        const paidNow = await request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: T.publishableKey, host: EU, body: { token: 'tok_success' }, timeoutMs: 60_000 });
        if (!ok(paidNow)) throw new Error(`paying ${pi} before the outage: ${paidNow.status} ${paidNow.text}`);
        toRefund.push(pi);
      }
      const refundBody = (i: number) => ({ payment_intent: toRefund[i], amount: 400, currency: 'EUR', idempotency_key: `outage-${server}-refund-${i}` });
      const refunds = toRefund.map((_, i) =>
        request(api, 'POST', '/v202607/refunds', { key: T.secretKey, host: EU, body: refundBody(i), timeoutMs: 120_000 }).catch((e: unknown) => e),
      );
      const payments = toPay.map((pi) =>
        request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: T.publishableKey, host: EU, body: { token: 'tok_success' }, timeoutMs: 120_000 }).catch((e: unknown) => e),
      );
      const deadline = Date.now() + EXPIRY_S * 1000;

      await stack.procs[server]!.stop('SIGKILL');
      down = true;
      if (OPEN_RATE > 0) ticker = setInterval(openLoop, 1000 / OPEN_RATE);
      const t0 = Date.now();
      await until('the expiry deadlines', async () => (Date.now() > deadline + 2000 && Date.now() - t0 > 5000 ? true : undefined), 60_000);
      const tRestart = Date.now();
      await (server === 'temporal' ? stack.restartTemporal() : stack.restartFerret());
      await until('readyz 200', async () => ((await request(api, 'GET', '/readyz')).status === 200 ? true : undefined), 90_000);
      down = false;
      if (ticker) clearInterval(ticker);
      const outageMs = Date.now() - t0;
      say(`  down ${outageMs} ms (restart to ready ${Date.now() - tRestart} ms)`);

      // A payment answered 503 is retried as the error says (same intent); one answered 2xx must complete.
      const paymentAnswers = await Promise.all(payments);
      let retried = 0;
      let paidByTheTimedOutTry = 0;
      for (const [i, a] of paymentAnswers.entries()) {
        if (!(a instanceof Error) && ok(a as Reply)) continue;
        if (!(a instanceof Error) && (a as Reply).status !== 503) findings.push(`${server}: payment answered ${(a as Reply).status} ${(a as Reply).text.slice(0, 120)}`);
        retried++;
        const again = await request(api, 'POST', `/v202607/payment-intents/${toPay[i]}/attempts`, { key: T.publishableKey, host: EU, body: { token: 'tok_success' }, timeoutMs: 120_000 });
        if (ok(again)) continue;
        // A 503 is "no answer in time", not "nothing done": the first try may have paid the intent meanwhile, and
        // the retry is then refused as on any paid intent (409), before any charge: the payment completed once.
        if (again.status === 409 && /payment_intent_unexpected_state/.test(again.text) && (await statusOf(toPay[i]!)) === 'success') paidByTheTimedOutTry++;
        else findings.push(`${server}: payment retried after the restart answered ${again.status} ${again.text.slice(0, 120)}`);
      }
      // A refund answered 503 (or not at all) is sent again with its key; each must end `success`, once.
      const refundIds: string[] = [];
      let refundsRetried = 0;
      for (const [i, a] of (await Promise.all(refunds)).entries()) {
        let answer = a instanceof Error ? null : (a as Reply);
        if (answer && !ok(answer) && answer.status !== 503) findings.push(`${server}: refund answered ${answer.status} ${answer.text.slice(0, 120)}`);
        if (!answer || !ok(answer)) {
          refundsRetried++;
          answer = await request(api, 'POST', '/v202607/refunds', { key: T.secretKey, host: EU, body: refundBody(i), timeoutMs: 120_000 });
          if (!ok(answer)) findings.push(`${server}: refund retried after the restart answered ${answer.status} ${answer.text.slice(0, 120)}`);
        }
        if (ok(answer)) refundIds.push((answer.body as { refund: string }).refund);
      }
      const refundsDone = await until('refunds in flight completed', async () => {
        const s = await Promise.all(refundIds.map(async (re) => ((await get(`/v202607/refunds/${re}`)).body as { status?: string }).status));
        return s.every((x) => x === 'success') ? s : undefined;
      }, 120_000).catch(() => null);
      if (!refundsDone) findings.push(`${server}: refunds in flight at the kill did not all reach success`);
      // The gateway's side: each refunded intent's charge has exactly one refund effect.
      const log = await gatewayEffects(stack.sandboxUrl);
      const intentOfCharge = new Map<string, string>();
      for (const e of log) if (e.kind === 'charge' && toRefund.includes(keyOwner(e))) intentOfCharge.set(e.id, keyOwner(e));
      const effectsPerIntent = new Map<string, number>();
      for (const e of log) {
        const pi = e.kind === 'refund' && e.charge_id ? intentOfCharge.get(e.charge_id) : undefined;
        if (pi) effectsPerIntent.set(pi, (effectsPerIntent.get(pi) ?? 0) + 1);
      }
      if (effectsPerIntent.size !== refundIds.length) findings.push(`${server}: ${effectsPerIntent.size} refunded charges at the gateway for ${refundIds.length} refunds`);
      const refundDuplicates = [...effectsPerIntent.values()].filter((n) => n > 1).length;
      if (refundDuplicates) findings.push(`${server}: ${refundDuplicates} intents with more than one refund effect at the gateway`);
      const expired = await until('expiry timers fired', async () => {
        const s = await Promise.all(expiring.map(statusOf));
        return s.every((x) => x === 'canceled') ? s : undefined;
      }, 60_000).catch(() => null);
      if (!expired) findings.push(`${server}: expiry timers due during the outage did not all fire: ${(await Promise.all(expiring.map(statusOf))).join(',')}`);
      const paid = await until('payments in flight completed', async () => {
        const s = await Promise.all(toPay.map(statusOf));
        return s.every((x) => x === 'success') ? s : undefined;
      }, 60_000).catch(() => null);
      if (!paid) {
        // Late is not lost: how much longer, or whether they are stuck, is the finding's substance.
        const t = Date.now();
        const late = await until('payments in flight completed late', async () => ((await Promise.all(toPay.map(statusOf))).every((x) => x === 'success') ? true : undefined), 300_000).catch(() => null);
        const answerOf = (a: unknown) => (a instanceof Error ? a.message : `${(a as Reply).status}:${((a as Reply).body as { status?: string } | null)?.status ?? '-'}`);
        findings.push(
          `${server}: payments in flight at the kill did not all complete within 60 s: ${(await Promise.all(toPay.map(statusOf))).join(',')}` +
            `${late ? `; all success ${Math.round((Date.now() - t) / 1000) + 60} s after the restart` : '; still not all success 6 min after the restart'}; answers ${paymentAnswers.map(answerOf).join(',')}`,
        );
      }
      loading = false;
      await Promise.all(callers);
      // The open loop's creates: 2xx or a shaped 503, and nothing lost.
      const openStatuses = new Map<string, number>();
      let openResent = 0;
      let openLost = 0;
      for (const o of opened) {
        let r = await o.answer;
        const label = r ? String(r.status) : 'no answer';
        openStatuses.set(label, (openStatuses.get(label) ?? 0) + 1);
        if (r && badFiveHundred(r)) findings.push(`${server}: open-loop create during the outage: ${r.status} ${r.text.slice(0, 160)}`);
        if (r && r.status >= 400 && r.status < 500) findings.push(`${server}: open-loop create during the outage answered ${r.status} ${r.text.slice(0, 160)}`);
        if (!r || !ok(r)) {
          openResent++;
          r = await openCreate(o.key).catch(() => null);
          if (!r || !ok(r)) findings.push(`${server}: open-loop create ${o.key} sent again after the restart answered ${r ? `${r.status} ${r.text.slice(0, 120)}` : 'nothing'}`);
        }
        const pi = r && ok(r) ? (r.body as { payment_intent?: string }).payment_intent : undefined;
        if (!pi || !(await statusOf(pi))) openLost++;
      }
      if (openLost) findings.push(`${server}: ${openLost} of ${opened.length} open-loop creates sent during the outage cannot be read afterwards`);
      let missing = 0;
      for (const pi of acceptedDuringOutage) {
        const s = await statusOf(pi);
        if (!s) missing++;
      }
      // Intents accepted while the server was down are real: a few of them are paid now.
      let paidLater = 0;
      for (const pi of acceptedDuringOutage.slice(0, 3)) {
        await request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: T.publishableKey, host: EU, body: { token: 'tok_success' }, timeoutMs: 120_000 });
        if (await until(`${pi} paid`, async () => ((await statusOf(pi)) === 'success' ? true : undefined), 60_000).catch(() => false)) paidLater++;
        else findings.push(`${server}: intent ${pi} accepted during the outage could not be paid afterwards (${await statusOf(pi)})`);
      }
      if (missing) findings.push(`${server}: ${missing} of ${acceptedDuringOutage.length} intents accepted during the outage are gone`);
      for (const b of seen.bad.slice(0, 5)) findings.push(`${server}: during the outage: ${b}`);
      if (seen.bad.length > 5) findings.push(`${server}: ... ${seen.bad.length - 5} more`);
      say(`  answers while down: ${[...seen.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}x${n}`).join(' ') || 'none'} (500 or unshaped 5xx: ${seen.bad.length})`);
      say(`  accepted while down: ${acceptedDuringOutage.length} (${missing} gone afterwards, ${paidLater} of ${Math.min(3, acceptedDuringOutage.length)} paid afterwards); expiry timers fired: ${expired ? expiring.length : 0} of ${expiring.length}; payments in flight completed: ${paid ? toPay.length : 0} of ${toPay.length} (${retried} retried after a 503, ${paidByTheTimedOutTry} of them found paid by the try that had no answer); refunds in flight: ${refundsDone ? refundIds.length : 0} of ${toRefund.length} success (${refundsRetried} retried), ${refundDuplicates} duplicated at the gateway`);
      if (OPEN_RATE > 0) say(`  open loop (${OPEN_RATE}/s): ${opened.length} sent while down, answered ${[...openStatuses].map(([st, n]) => `${st}x${n}`).join(' ') || 'none'}; ${openResent} sent again with their keys after the restart; ${opened.length - openLost} of ${opened.length} readable afterwards`);
      say(`  load: ${CALLERS} callers, ${INFLIGHT} expiring, ${INFLIGHT} payments and ${INFLIGHT} refunds in flight${OPEN_RATE > 0 ? `, ${OPEN_RATE} creates/s open loop` : ''}`);
    }
    await strandedCheck(stack, findings);
    for (const f of findings) say(`FINDING ${f}`);
    say(`\noutage: ${findings.length} findings`);
    return findings.length > 0 ? 1 : 0;
  } finally {
    await stack.stop();
  }
}

/**
 * After both outages: intents and payouts left at version 0 without a workflow (a create whose start and
 * take-back both failed). The stranded-records sweep is run at once (no age cutoff: nothing is being created
 * now) and must leave none behind; what it took back is printed, not a finding, since that is its job.
 */
async function strandedCheck(stack: Stack, findings: string[]): Promise<void> {
  await withDbAndTemporal(stack, async (db, client) => {
    const withoutWorkflow = async () => {
      const ids: string[] = [];
      for (const collection of ['payment_intents', 'payouts']) {
        for (const r of await db.collection(collection).find({ version: 0 }, { projection: { _id: 1 } }).toArray()) {
          const id = String(r._id);
          if ((await workflowExistence(client, id)) === false) ids.push(id);
        }
      }
      return ids;
    };
    const before = await withoutWorkflow();
    const outcome = await runStrandedSweep(stack, client, 'stranded-sweep', { olderThanSeconds: 0 });
    const after = await withoutWorkflow();
    say(`\nstranded records (version 0, no workflow): ${before.length} after the outages${before.length ? ` (${before.slice(0, 5).join(', ')}${before.length > 5 ? ', ...' : ''})` : ''}; the sweep took back ${outcome.payment_intent.takenBack} intents and ${outcome.payout.takenBack} payouts; ${after.length} left`);
    if (after.length) findings.push(`stranded records left after the sweep: ${after.slice(0, 5).join(', ')}`);
  });
}
