import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RUNBOOK_QUERIES } from '../../../platform/runbook-queries';
import { SEARCH_ATTRIBUTES } from '../../../platform/search-attributes';

// docs/runbook.md shows each query as the code runs it (at its example time), under the title and with the
// action the ops CLI prints, and names only search attributes the server registers.

const doc = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'runbook.md'), 'utf8');
const EXAMPLE_NOW = new Date('2026-11-23T12:00:00Z');

test.each(RUNBOOK_QUERIES.map((q) => [q.name, q] as const))('the runbook shows %s as the code runs it', (name, q) => {
  expect(doc).toContain(`\`${name}\``);
  expect(doc).toContain(`### ${q.title}\n`);
  expect(doc).toContain(q.action);
  expect(doc).toContain(q.query(EXAMPLE_NOW));
});

test('every query names only registered search attributes (or Temporal built-ins)', () => {
  const builtIn = new Set(['WorkflowType', 'ExecutionStatus', 'StartTime', 'CloseTime', 'WorkflowId']);
  for (const q of RUNBOOK_QUERIES) {
    const names = [...q.query(EXAMPLE_NOW).matchAll(/\b([A-Z][A-Za-z]+) (?:=|<|>|IN)/g)].map((m) => m[1]!);
    for (const n of names) expect(builtIn.has(n) || n in SEARCH_ATTRIBUTES ? n : `unregistered: ${n}`).toBe(n);
  }
});

test('the queries cover what the issue names: deadlines, unknown attempts, refund SLAs, payouts, deliveries, dunning, held stock, reconciliation, stranded records', () => {
  expect(RUNBOOK_QUERIES.map((q) => q.name)).toEqual([
    'intents-past-deadline',
    'attempts-unknown',
    'refunds-near-sla',
    'payouts-pending-promise',
    'deliveries-failing',
    'deliveries-parked',
    'subscriptions-past-due',
    'checkouts-holding-stock',
    'reconciliation-discrepancies',
    'stranded-records-taken-back',
  ]);
});
