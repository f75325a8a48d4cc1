import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

// The operators' CLI (docs/runbook.md): a thin client of the admin API, so every action goes through the
// same validation, Update and audit row as a call to the API would.
//
//   npm run ops -- queries                                  the runbook's queries, with the time filled in
//   npm run ops -- find <query>                             the workflows one query finds now
//   npm run ops -- <action> <id> --reason "..." [--operator name] [--evidence "..."]
//   npm run ops -- enable-endpoint whe_... --reason "..." [--no-replay]   re-enable without replaying what it parked
//   npm run ops -- audit <id>                               what operators did to one object
//   npm run ops -- reconcile [--from ISO] [--to ISO]        a reconciliation run now (default: yesterday, UTC)
//
// The API is OPS_API_URL (default http://127.0.0.1:$PORT, PORT 3000); the token ADMIN_API_TOKEN, else the
// one `npm run dev` (or dev:cluster, whichever started last) keeps under .data/. The operator is --operator, else OPS_OPERATOR, else the login.

const ACTIONS: Record<string, string> = {
  'force-cancel': 'force_cancel_intent',
  recheck: 'recheck_attempt',
  'retry-refund': 'retry_refund',
  'retry-payout': 'retry_payout',
  'confirm-payout': 'confirm_payout',
  redeliver: 'redeliver_webhook',
  'enable-endpoint': 'enable_webhook_endpoint',
};

const USAGE = `usage: npm run ops -- <command> [args]
  queries                                   list the runbook's queries
  find <query>                              run one (${'`'}npm run ops -- queries${'`'} names them)
  ${Object.keys(ACTIONS).join(' | ')} <id> --reason "..." [--operator name] [--evidence "..."]
  enable-endpoint <whe_...> --reason "..." --no-replay   re-enable without replaying what it parked
  audit <id>                                the operator actions taken on <id>
  reconcile [--from ISO-time] [--to ISO-time]`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function adminToken(): string {
  if (process.env.ADMIN_API_TOKEN) return process.env.ADMIN_API_TOKEN;
  // `npm run dev` keeps its token in .data/, `npm run dev:cluster` in .data/cluster/ (either in DEV_DATA_DIR when
  // it is set): the newer is the one running.
  const dirs = process.env.DEV_DATA_DIR ? [path.resolve(process.env.DEV_DATA_DIR)] : [path.join(__dirname, '..', '.data'), path.join(__dirname, '..', '.data', 'cluster')];
  const files = dirs.map((d) => path.join(d, 'admin-token')).filter((f) => existsSync(f));
  const newest = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest) return readFileSync(newest, 'utf8').trim();
  return fail('No admin token: set ADMIN_API_TOKEN (npm run dev keeps its own in .data/admin-token, dev:cluster in .data/cluster/admin-token, or in DEV_DATA_DIR)');
}

async function call(method: string, route: string, body?: unknown): Promise<unknown> {
  const base = process.env.OPS_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
  let res: Response;
  try {
    res = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${adminToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    return fail(`The API at ${base} did not answer (${(err as Error).message}); is it running? (OPS_API_URL)`, 1);
  }
  const text = await res.text();
  const parsed = (() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  })();
  if (!res.ok) {
    const e = (parsed as { error?: { code?: string; message?: string } }).error;
    return fail(`${res.status} ${e?.code ?? ''}: ${e?.message ?? text}`, 1);
  }
  return parsed;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' }, reason: { type: 'string' }, operator: { type: 'string' }, evidence: { type: 'string' }, 'no-replay': { type: 'boolean' }, from: { type: 'string' }, to: { type: 'string' } },
    });
  } catch (err) {
    // An unknown or misspelt flag: say which, and how the commands go (not a stack trace).
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
  const { positionals, values } = parsed;
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, id] = positionals;
  if (!command) return fail(USAGE);
  if (command === 'queries') {
    const { data } = (await call('GET', '/admin/runbook')) as { data: Array<{ name: string; title: string; query: string }> };
    for (const q of data) process.stdout.write(`${q.name}\n  ${q.title}\n  ${q.query}\n\n`);
    return;
  }
  if (command === 'find') {
    if (!id) return fail('usage: npm run ops -- find <query>');
    const found = (await call('GET', `/admin/runbook/${encodeURIComponent(id)}`)) as { query: string; data: Array<Record<string, string>>; has_more: boolean };
    process.stdout.write(`${found.query}\n${found.data.length}${found.has_more ? '+' : ''} found\n`);
    for (const w of found.data) process.stdout.write(`  ${w.workflow_id}  ${w.type}  ${w.status}  started ${w.start_time}\n`);
    return;
  }
  if (command === 'audit') {
    if (!id) return fail('usage: npm run ops -- audit <id>');
    return print(await call('GET', `/admin/operations?target=${encodeURIComponent(id)}`));
  }
  if (command === 'reconcile') {
    // Default: yesterday, midnight to midnight UTC (what the daily Schedule covers).
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    const to = values.to ?? midnight.toISOString();
    const from = values.from ?? new Date(Date.parse(to) - 86_400_000).toISOString();
    const operator = values.operator ?? process.env.OPS_OPERATOR ?? os.userInfo().username;
    return print(await call('POST', '/admin/reconciliation/runs', { from, to, operator, ...(values.reason ? { reason: values.reason } : {}) }));
  }
  const action = ACTIONS[command] ?? (Object.values(ACTIONS).includes(command) ? command : undefined);
  if (!action) return fail(`unknown command '${command}'\n${USAGE}`);
  if (!id) return fail(`usage: npm run ops -- ${command} <id> --reason "..."`);
  if (!values.reason) return fail('--reason is required: it is kept in the workflow and the audit trail');
  if (values['no-replay'] && action !== 'enable_webhook_endpoint') return fail('--no-replay applies to enable-endpoint only');
  const operator = values.operator ?? process.env.OPS_OPERATOR ?? os.userInfo().username;
  print(
    await call('POST', `/admin/operations/${action}`, {
      target: id,
      operator,
      reason: values.reason,
      ...(values.evidence ? { evidence: values.evidence } : {}),
      ...(values['no-replay'] ? { replay_missed: false } : {}),
    }),
  );
}

main().catch((err) => fail(String(err instanceof Error ? err.stack : err), 1));
