import type { OperationExample } from './examples';
import type { ErrorCatalogEntry } from './error-catalog';

// Operators' examples (api/admin/operations.ts): Samira of the payments team finds a payment stuck on the
// gateway's lost answer, asks the gateway again, and refunds a paid order a merchant asked support to undo.

const PI = 'pi_eu_GtWpKeshykP8Z38qouC9uj';
const RE = 're_eu_qz3VbF0pT8sN6yL2cXw4Rk';
const PAYOUT = '24055ecb-33de-45f2-b103-03f147a3e608';
const OPA = 'opa_eu_Hc2RkY8qLw5VnT0zJb3Xs7';
const TENANT = 'ten_eu_XQpJzNIBnjjYgH7w1FOqlQ';
const REQUEST_ID = 'req_4Lm9QxT2vB7nW0cR5kZ8Hs';

const error = (type: string, code: string, message: string, param?: string) => ({
  error: { type, code, message, ...(param ? { param } : {}), request_id: REQUEST_ID },
});

const stamp = { operator: 'samira@ops.example.com', reason: 'Gateway incident INC-2291: answers were lost between 10:02 and 10:09' };

export const EXAMPLES: Record<string, OperationExample> = {
  'POST /admin/operations/:action': {
    summary: 'Ask the gateway now about an attempt whose answer was lost',
    params: { action: 'recheck_attempt' },
    body: { target: PI, ...stamp },
    response: {
      status: 200,
      body: { action_id: OPA, action: 'recheck_attempt', target: PI, outcome: 'done', result: { outcome: 'rechecked', status: 'success', attempt: null } },
    },
    more: [
      {
        status: 200,
        summary: 'Force-cancel a paid intent: all that is left is refunded',
        body: {
          action_id: 'opa_eu_9WcTq1LpZ4xK7mN2bV5Rj0',
          action: 'force_cancel_intent',
          target: PI,
          outcome: 'done',
          result: { outcome: 'refunded', status: 'success', refund: RE },
        },
      },
      { status: 400, summary: 'confirm_payout without evidence', body: error('invalid_request_error', 'parameter_missing', 'Marking a payout confirmed needs evidence', 'evidence') },
      { status: 404, summary: 'No such payout', body: error('invalid_request_error', 'resource_missing', `No such payout: '${PAYOUT}'`, 'target') },
      { status: 409, summary: 'retry_refund on a settled refund', body: error('invalid_request_error', 'refund_settled', 'This refund is settled (success): nothing to retry') },
    ],
  },
  'GET /admin/operations': {
    summary: 'What operators did to one payment intent',
    query: { target: PI },
    response: {
      status: 200,
      body: {
        data: [
          {
            id: OPA,
            action: 'recheck_attempt',
            target: PI,
            tenant: TENANT,
            ...stamp,
            evidence: null,
            outcome: 'done',
            code: null,
            message: null,
            requested_at: '2026-11-23T10:14:02.118Z',
            finished_at: '2026-11-23T10:14:02.604Z',
          },
        ],
      },
    },
  },
  'GET /admin/runbook': {
    summary: "The runbook's queries at this moment",
    response: {
      status: 200,
      body: {
        data: [
          {
            name: 'attempts-unknown',
            title: 'Payment attempts in `unknown`',
            action: 'A charge call lost its answer; the workflow asks the gateway by idempotency key with a backoff up to a minute. Many at once means the gateway (or our network to it) is down. `recheck_attempt` asks now.',
            query: "WorkflowType = 'paymentIntentWorkflow' AND ExecutionStatus = 'Running' AND AttemptUnknown = true",
          },
        ],
      },
    },
  },
  'GET /admin/runbook/:query': {
    summary: 'The payouts waiting on the gateway for more than a day',
    params: { query: 'payouts-pending-promise' },
    response: {
      status: 200,
      body: {
        name: 'payouts-pending-promise',
        query: "WorkflowType = 'payoutWorkflow' AND ExecutionStatus = 'Running' AND PaymentStatus = 'pending_promise' AND StartTime < '2026-11-22T10:15:00Z'",
        data: [{ workflow_id: PAYOUT, run_id: '0193f2c4-5b7e-7c1d-9a2e-4f6b8d0c1e3a', type: 'payoutWorkflow', status: 'RUNNING', start_time: '2026-11-21T16:40:12.031Z' }],
        has_more: false,
      },
    },
    more: [{ status: 404, summary: 'No such query', body: error('invalid_request_error', 'resource_missing', "No such runbook query: 'stuck-payouts'", 'query') }],
  },
};

export const ERRORS: ErrorCatalogEntry[] = [
  {
    code: 'nothing_to_refund',
    statuses: [409],
    meaning: 'An operator force-cancel of a paid payment intent found nothing left to refund.',
    action: 'Nothing to do: the payment is refunded in full already (its refunds say how).',
  },
  {
    code: 'nothing_to_recheck',
    statuses: [409],
    meaning: 'An operator re-check found no attempt of the payment intent waiting on the gateway.',
    action: 'Nothing to do: retrieve the intent to see how its attempts ended.',
  },
  {
    code: 'refund_settled',
    statuses: [409],
    meaning: 'An operator retry named a refund that is settled: the gateway has executed or released it.',
    action: 'Nothing to retry: retrieve the refund to see its outcome.',
  },
  {
    code: 'payout_final',
    statuses: [409],
    meaning: 'An operator action named a payout that is final (success or one of the canceled statuses).',
    action: 'Nothing to retry or confirm: retrieve the payout; a final payout changes only if the gateway says it executed after all.',
  },
  {
    code: 'payout_not_started',
    statuses: [409],
    meaning: 'An operator action named a payout whose workflow never started: its create answered an error and was not sent again, so its record stays at version 0 (pending_created).',
    action: 'Nothing to retry or confirm: the merchant sending the create again with its idempotency key starts it; otherwise the stranded-records sweep deletes it within minutes (docs/runbook.md).',
  },
];
