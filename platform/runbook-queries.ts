// The Temporal UI queries of docs/runbook.md: what goes wrong, how to find it, what to do. One list, so the
// runbook, the ops CLI (`npm run ops -- find <name>`) and the admin API (GET /admin/runbook/{name}) say the
// same thing; test/unit/ops keeps the runbook's text equal to it and test/integration/operations runs each
// query against the real server. A saved view in the Temporal UI cannot say "now": the CLI and the API fill
// the time in; pasted by hand, put the time in yourself.

export interface RunbookQuery {
  name: string;
  title: string;
  /** Why this is a problem, and what to do (the runbook's words). */
  action: string;
  /** The visibility query at `now`. */
  query(now: Date): string;
}

const HOUR_MS = 3_600_000;
const at = (ms: number) => `'${new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')}'`;

export const RUNBOOK_QUERIES: readonly RunbookQuery[] = [
  {
    name: 'intents-past-deadline',
    title: 'Pending payment intents past their deadline',
    action:
      "An intent's workflow cancels it at its deadline to the second; one still pending after it means the workflow cannot run (no worker polls, or its task fails). Check the worker and the workflow's pending task; a charge on the wire is decided first by design (wait for it). `force_cancel_intent` cancels it.",
    query: (now) => `WorkflowType = 'paymentIntentWorkflow' AND ExecutionStatus = 'Running' AND PaymentStatus = 'pending' AND ExpiresAt < ${at(now.getTime())}`,
  },
  {
    name: 'attempts-unknown',
    title: 'Payment attempts in `unknown`',
    action:
      'A charge call lost its answer; the workflow asks the gateway by idempotency key with a backoff up to a minute. Many at once means the gateway (or our network to it) is down. `recheck_attempt` asks now.',
    query: () => `WorkflowType = 'paymentIntentWorkflow' AND ExecutionStatus = 'Running' AND AttemptUnknown = true`,
  },
  {
    name: 'refunds-near-sla',
    title: 'Refunds pending within a day of their SLA, or past it',
    action:
      'At its SLA a refund asks the gateway to cancel; only the answer releases the amount. One past its SLA and still running has not been answered. `retry_refund` asks (or cancels) now; a refund that never settles is a matter for the gateway.',
    query: (now) => `WorkflowType = 'refundWorkflow' AND ExecutionStatus = 'Running' AND ExpiresAt < ${at(now.getTime() + 24 * HOUR_MS)}`,
  },
  {
    name: 'payouts-pending-promise',
    title: 'Payouts stuck in `pending_promise` for more than a day',
    action:
      'The gateway accepted the transfer and has not completed it. `retry_payout` asks it now; with proof from the bank that the money arrived, `confirm_payout` with `--evidence` marks it `success`.',
    query: (now) => `WorkflowType = 'payoutWorkflow' AND ExecutionStatus = 'Running' AND PaymentStatus = 'pending_promise' AND StartTime < ${at(now.getTime() - 24 * HOUR_MS)}`,
  },
  {
    name: 'deliveries-failing',
    title: 'Webhook deliveries failing for more than a day',
    action:
      "A delivery still running after a day has failed every attempt so far (its summary lists them). Tell the merchant; `redeliver_webhook` attempts now once their endpoint is back.",
    query: (now) => `WorkflowType = 'webhookDeliveryWorkflow' AND ExecutionStatus = 'Running' AND StartTime < ${at(now.getTime() - 24 * HOUR_MS)}`,
  },
  {
    name: 'deliveries-parked',
    title: 'Deliveries parked because their endpoint is disabled',
    action:
      'An endpoint that failed every delivery for WEBHOOK_DISABLE_AFTER (3 days) is disabled (`webhook_endpoint.disabled` event); its deliveries are parked, not sent. When the merchant says it is fixed, `enable_webhook_endpoint` (target `whe_...`, listed by GET /admin/tenants/{tenant}/webhook-endpoints) re-enables it and replays what it parked (`replay_missed: false`, `--no-replay` in `npm run ops`, re-enables it without replaying; enable again to replay them later).',
    // Parked deliveries stay parked once replayed (the replay is a delivery of its own): a week's worth is shown.
    query: (now) => `WorkflowType = 'webhookDeliveryWorkflow' AND DeliveryStatus = 'parked' AND CloseTime > ${at(now.getTime() - 7 * 24 * HOUR_MS)}`,
  },
  {
    name: 'subscriptions-past-due',
    title: 'Subscriptions `past_due`',
    action: "The latest invoice's charge failed; the workflow retries it on the dunning schedule (1, 3, 7 days) and then cancels or marks it unpaid. Nothing to do unless many fail at once (a gateway problem).",
    query: () => `WorkflowType = 'subscriptionWorkflow' AND ExecutionStatus = 'Running' AND PaymentStatus = 'past_due'`,
  },
  {
    name: 'checkouts-holding-stock',
    title: 'Checkouts holding stock for more than an hour',
    action:
      "A checkout holds its lines' units until its payment intent ends (paid, canceled or expired). An hour is long for a shop: look at the intent it waits on (`payment pi_...` in its details line, or the checkout's `checkoutState` query); canceling that intent releases the units.",
    query: (now) =>
      `WorkflowType = 'checkoutWorkflow' AND ExecutionStatus = 'Running' AND PaymentStatus IN ('reserving', 'awaiting_payment') AND StartTime < ${at(now.getTime() - HOUR_MS)}`,
  },
  {
    name: 'reconciliation-discrepancies',
    title: 'Reconciliation runs of the last week that found discrepancies (or failed)',
    action:
      "Each discrepancy is a record (`GET /admin/reconciliation/discrepancies?status=open`) and a `discrepancy.opened` event of its tenant. Look at both sides, fix what is ours (a record the gateway contradicts), take the gateway's up with it, and resolve the discrepancy with a reason. A `status_mismatch` where one side was still pending waits: later runs read such rows again until both sides settle, then resolve it themselves (operator `reconciliation`), and a mismatch that remains is opened anew with the settled sides. A failed run is not run again (the next day's covers its own day only), so its window stays unchecked until `npm run ops -- reconcile --from <from> --to <to>` runs it (`GET /admin/reconciliation/runs/<id>` gives the window); without flags that command runs yesterday's.",
    query: (now) => `WorkflowType = 'reconciliationWorkflow' AND PaymentStatus IN ('discrepancies', 'failed') AND StartTime > ${at(now.getTime() - 7 * 24 * HOUR_MS)}`,
  },
  {
    name: 'stranded-records-taken-back',
    title: 'Sweeps of the last day that took back stranded records (intents, payouts, checkouts, test clocks, subscriptions)',
    action:
      "Each run's details line names the records it deleted, by kind (the worker log names every one: `stranded record taken back`). Such a record was left at version 0 without a workflow by a create that failed or whose API process stopped; its merchant was answered with an error or not at all. A few after an outage are expected; a steady trickle means creates are failing between their insert and their workflow start: look at the API's logs and Temporal's health.",
    query: (now) => `WorkflowType = 'strandedSweepWorkflow' AND PaymentStatus = 'taken_back' AND StartTime > ${at(now.getTime() - 24 * HOUR_MS)}`,
  },
];

export function runbookQuery(name: string): RunbookQuery | undefined {
  return RUNBOOK_QUERIES.find((q) => q.name === name);
}
