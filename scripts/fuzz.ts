import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from './stack';

// `npm run fuzz`: schemathesis over every operation of /openapi.json (positive and negative cases, then
// stateful sequences) against the real stack on throwaway data, with a fresh tenant's secret key and the
// admin token. Prints schemathesis' report and a one-line summary; exits non-zero on any failure.
// Extra arguments go to `schemathesis run` (e.g. `npm run fuzz -- --max-examples 200 --seed 1`).

const SCHEMATHESIS_VERSION = '4.32.5';

/**
 * What a run checks: no 5xx, and every answer in the documented shape (status code, content type,
 * headers, body schema); authentication is never ignored; a deleted resource is gone and a created one is
 * there. Not checked: whether the document states every semantic rule (an ISO code list, a served region),
 * which `positive_data_acceptance` and `negative_data_rejection` would ask; and `unsupported_method`,
 * which a versioned path that falls back to an older version's method (GET /v202608/payment-intents is
 * v202607's list) would fail by design.
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'ignored_auth',
  'use_after_free',
  'ensure_resource_availability',
];

const cacheDir = process.env.PAYORCH_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'payorch');

/** The pinned schemathesis in a per-user venv, installed from PyPI the first time. */
function schemathesis(): string {
  const venv = path.join(cacheDir, `schemathesis-${SCHEMATHESIS_VERSION}`);
  const exe = path.join(venv, 'bin', 'schemathesis');
  // The venv's scripts carry its absolute path, so it is built in place; the marker says it is complete.
  const done = path.join(venv, '.installed');
  if (!existsSync(done)) {
    process.stdout.write(`[fuzz] installing schemathesis==${SCHEMATHESIS_VERSION} into ${venv}\n`);
    rmSync(venv, { recursive: true, force: true });
    mkdirSync(cacheDir, { recursive: true });
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
    execFileSync(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], { stdio: 'inherit' });
    writeFileSync(done, `${SCHEMATHESIS_VERSION}\n`);
  }
  return exe;
}

async function adminPost(stack: Stack, urlPath: string, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${stack.apiUrl}${urlPath}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${urlPath} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}

function run(exe: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // Its example database and cache (.hypothesis, .schemathesis) go to cwd: the run's own directory.
    const child = spawn(exe, args, { stdio: 'inherit', env, cwd });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

interface Report {
  running_time: number;
  operations: { selected: number; tested: number; errored: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: { code: string; title: string; count: number }[];
  errors: unknown[];
}

// Ctrl-C while starting abandons the start (the launcher stops what it started); while schemathesis runs, it
// reaches schemathesis too, which stops, and the stack is stopped after it.
const starting = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => starting.abort(new Error(`${signal} received`)));

async function main(): Promise<number> {
  const exe = schemathesis();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-fuzz-'));
  process.stdout.write(`[fuzz] starting the stack (logs in ${path.join(dir, 'logs')})\n`);
  const stack = await startStack({
    dataDir: path.join(dir, 'data'),
    logDir: path.join(dir, 'logs'),
    temporalDb: 'fast',
    signal: starting.signal,
    // One fast client: at the default per-key limits most of its requests would be 429s that test nothing.
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_SEC: '100000', RATE_LIMIT_SECRET_BURST: '100000' },
  });
  try {
    const tenant = await adminPost(stack, '/admin/tenants', { name: 'Fuzz shop', region: 'eu' });
    await adminPost(stack, `/admin/tenants/${tenant.tenant}/connectors`, { gateway: 'sandbox', live: true, payment_methods: ['card'] });
    // Credentials reach schemathesis through its environment, not its command line.
    const config = path.join(dir, 'schemathesis.toml');
    writeFileSync(
      config,
      [
        '[auth.openapi.secretKey]',
        'bearer = "${PAYORCH_FUZZ_SECRET_KEY}"',
        '[auth.openapi.adminToken]',
        'bearer = "${PAYORCH_FUZZ_ADMIN_TOKEN}"',
        '',
      ].join('\n'),
    );
    const reportFile = path.join(dir, 'report.json');
    const args = [
      '--config-file', config,
      'run', `${stack.apiUrl}/openapi.json`,
      '--checks', CHECKS.join(','),
      '--mode', 'all',
      '--phases', 'examples,coverage,fuzzing,stateful',
      '--max-examples', '200',
      '--workers', '2',
      '--suppress-health-check', 'too_slow',
      '--no-color',
      '--report', 'json,junit',
      '--report-dir', path.join(dir, 'report'),
      '--report-json-path', reportFile,
      ...process.argv.slice(2),
    ];
    process.stdout.write(`[fuzz] schemathesis ${SCHEMATHESIS_VERSION}: checks ${CHECKS.join(', ')}\n`);
    const code = await run(exe, args, {
      ...process.env,
      PAYORCH_FUZZ_SECRET_KEY: tenant.secret_key,
      PAYORCH_FUZZ_ADMIN_TOKEN: stack.adminToken,
    }, dir);
    if (!existsSync(reportFile)) {
      process.stdout.write(`[fuzz] schemathesis exited ${code} without a report\n`);
      return code || 1;
    }
    const r = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const failures = r.failures.reduce((n, f) => n + f.count, 0);
    process.stdout.write(
      `\n[fuzz] ${r.operations.tested}/${r.operations.selected} operations, ${r.test_cases.generated} cases in ${Math.round(r.running_time)} s: ` +
        `${failures} failures${r.failures.map((f) => ` (${f.code} ${f.title}: ${f.count})`).join('')}, ${r.errors.length} errors; reports in ${path.join(dir, 'report')}\n`,
    );
    return failures > 0 || r.errors.length > 0 ? Math.max(code, 1) : code;
  } finally {
    await stack.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`[fuzz] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
