import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'koa';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DomainError, type ErrorKind } from '../../../domain/errors';
import { errorHandler } from '../../../api/http/error-handler';
import { runUpdate } from '../../../api/http/workflow-calls';
import { ERROR_CATALOG, ERROR_TYPE_OF_STATUS, errorCatalogView } from '../../../api/openapi/error-catalog';

// The error catalog (api/openapi/error-catalog.ts) against the code: every error `code` the API can answer,
// found by scanning the sources, must be in the catalog with the status the API answers it with, and every
// code of the catalog must be one the code raises. The scan reads:
//  - DomainError constructions, `new DomainError('<kind>', '<code>'`, and errorBody('<kind>', '<code>'`;
//  - the helpers of domain/errors.ts: invalidRequest / conflict / forbidden / paymentFailed('<code>'),
//    notFound -> resource_missing, unauthenticated -> invalid_api_key, unavailable -> service_unavailable;
//  - the workflows' refusals of an Update (`{ type: '<type>', message }` and ApplicationFailure types),
//    turned into codes by api/http/workflow-calls.ts itself;
//  - admission rejections (`ok: false, code: '<code>'`), which the services answer as invalidRequest;
//  - and the call sites that pass a code computed at run time, each listed in DYNAMIC_SITES with the codes
//    it can produce (a new such site fails until it is listed).
// The status of each kind comes from api/http/error-handler.ts, by running it.

const ROOT = path.join(__dirname, '..', '..', '..');
/** The API process's code: the sandbox (a gateway simulator), scripts and tests answer nothing to merchants. */
const SCANNED = ['api', 'domain', 'workflows', 'activities', 'platform', 'gateways', 'data', 'worker'];

function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push({ file: child.split(path.sep).join('/'), text: readFileSync(path.join(ROOT, child), 'utf8') });
    }
  };
  for (const dir of SCANNED) walk(dir);
  return out;
}

/** A call that passes a computed code: `file` and the call's text up to its first argument. */
interface DynamicSite {
  file: string;
  call: string;
  kind: ErrorKind;
  /** The codes it can pass; `ADMISSIONS` / `WORKFLOW_REFUSALS` stand for the scanned sets. */
  codes: string[];
  why: string;
}

const DYNAMIC_SITES: DynamicSite[] = [
  { file: 'api/refunds/service.ts', call: 'invalidRequest(admission.code', kind: 'invalid_request', codes: ['ADMISSIONS'], why: 'the refund admission rejections (domain/refund-balance.ts, the intent workflow)' },
  { file: 'api/credit-notes/service.ts', call: 'invalidRequest(admission.code', kind: 'invalid_request', codes: ['ADMISSIONS'], why: "a credit note's admission on its invoice's intent (the refund admission rejections)" },
  { file: 'api/returns/service.ts', call: 'invalidRequest(admission.code', kind: 'invalid_request', codes: ['ADMISSIONS'], why: 'the return admission rejections (workflows/checkout)' },
  { file: 'api/returns/service.ts', call: 'invalidRequest(err.code', kind: 'invalid_request', codes: ['idempotency_key_in_use'], why: "guarded by err.code === 'idempotency_key_in_use'" },
  { file: 'api/returns/service.ts', call: 'conflict(err.code', kind: 'conflict', codes: ['return_transition_invalid'], why: "guarded by err.code === 'return_transition_invalid'" },
  {
    file: 'api/cards-mit/service.ts',
    call: 'paymentFailed(result.failure_code',
    kind: 'payment_failed',
    // The sandbox's non-issuer declines (sandbox/charges.ts DECLINES) pass through as their own codes.
    codes: ['processing_error', 'network_transaction_id_missing', 'network_transaction_id_mismatch', 'invalid_token', 'payment_method_not_reusable'],
    why: 'a failure that is neither the issuer\'s (card_declined) nor NOT_THE_CARD\'s: the workflow\'s processing_error, or a gateway\'s own failure code, which passes through',
  },
  { file: 'api/http/workflow-calls.ts', call: "conflict(f.type ?? 'update_rejected'", kind: 'conflict', codes: ['WORKFLOW_REFUSALS', 'update_rejected'], why: 'a workflow refusal type not mapped to a code of its own' },
];

const HELPERS: Record<string, ErrorKind> = { invalidRequest: 'invalid_request', conflict: 'conflict', forbidden: 'permission', paymentFailed: 'payment_failed' };
const FIXED_HELPERS: Record<string, { code: string; kind: ErrorKind }> = {
  notFound: { code: 'resource_missing', kind: 'not_found' },
  unauthenticated: { code: 'invalid_api_key', kind: 'authentication' },
  unavailable: { code: 'service_unavailable', kind: 'unavailable' },
};

interface Found {
  code: string;
  kind: ErrorKind;
  where: string;
  /** The status the call site sets itself, when it does not leave it to the kind. */
  status?: number;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

function scan() {
  const found: Found[] = [];
  const dynamic: { file: string; call: string; where: string }[] = [];
  const admissions = new Set<string>();
  const refusals = new Set<string>();
  for (const { file, text } of sources()) {
    const at = (i: number) => `${file}:${lineOf(text, i)}`;
    // new DomainError('kind', 'code' | expr  and  errorBody('kind', 'code'
    for (const m of text.matchAll(/\b(new DomainError|errorBody)\(\s*'([a-z_]+)'\s*,\s*(?:'([A-Za-z_]+)'|([^,)]+))/g)) {
      // errorBody's callers may set the status themselves (`ctx.status = 500`, or `const status = 431` where there
      // is no Koa context, just before the body): that one counts.
      const explicit = m[1] === 'errorBody' ? /(?:ctx\.|\b)status = (\d{3});\s*[^;]*$/.exec(text.slice(Math.max(0, m.index - 200), m.index)) : null;
      if (m[3]) found.push({ code: m[3], kind: m[2] as ErrorKind, where: at(m.index), ...(explicit ? { status: Number(explicit[1]) } : {}) });
      else if (!(file === 'domain/errors.ts' && m[4]!.trim() === 'code') && !(file === 'api/http/error-handler.ts' && m[1] === 'errorBody'))
        dynamic.push({ file, call: `${m[1]}(${m[0].slice(m[0].indexOf('(') + 1).replace(/\s+/g, ' ').trim()}`, where: at(m.index) });
    }
    // errorBody's own definition and its call with the DomainError's fields are the handler itself.
    for (const m of text.matchAll(/(?<![\w.])(invalidRequest|conflict|forbidden|paymentFailed)\(\s*(?:'([A-Za-z_]+)'|([^,)]+))/g)) {
      if (m[2]) found.push({ code: m[2], kind: HELPERS[m[1]!]!, where: at(m.index) });
      else if (!/^(code|message)\b/.test(m[3]!.trim())) dynamic.push({ file, call: `${m[1]}(${m[3]!.replace(/\s+/g, ' ').trim()}`, where: at(m.index) });
    }
    for (const m of text.matchAll(/(?<![\w.])(notFound|unauthenticated|unavailable)\(/g)) {
      if (file === 'domain/errors.ts') continue; // their definitions
      found.push({ ...FIXED_HELPERS[m[1]!]!, where: at(m.index) });
    }
    if (/(?<![\w.])notAnswered\(/.test(text)) found.push({ code: 'service_unavailable', kind: 'unavailable', where: file });
    // Admission rejections: values and declared unions.
    for (const m of text.matchAll(/ok:\s*false\s*,\s*code:\s*'([A-Za-z_]+)'/g)) admissions.add(m[1]!);
    for (const m of text.matchAll(/ok:\s*false\s*;\s*code:\s*((?:'[A-Za-z_]+'\s*\|?\s*)+)/g)) for (const c of m[1]!.matchAll(/'([A-Za-z_]+)'/g)) admissions.add(c[1]!);
    // A named rejection type (`code: RefundRejection`): its union.
    for (const m of text.matchAll(/type\s+\w*Rejection\s*=\s*((?:\s*\|?\s*'[A-Za-z_]+')+)/g)) for (const c of m[1]!.matchAll(/'([A-Za-z_]+)'/g)) admissions.add(c[1]!);
    if (file.startsWith('workflows/')) {
      for (const m of text.matchAll(/\{\s*type:\s*'([a-z_]+)'\s*,\s*message/g)) refusals.add(m[1]!);
      for (const m of text.matchAll(/ApplicationFailure\.(?:nonRetryable|retryable|create)\([^;]*?,\s*'([A-Za-z_]+)'\s*\)/g)) refusals.add(m[1]!);
    }
  }
  return { found, dynamic, admissions, refusals };
}

/** The status and error type api/http/error-handler.ts answers a failure with. */
async function answerTo(failure: unknown): Promise<{ status: number; type: string }> {
  const ctx = { state: {}, status: 0, body: undefined, set: () => undefined, method: 'GET', path: '/' } as unknown as Context;
  await errorHandler(ctx, async () => {
    throw failure;
  });
  return { status: ctx.status, type: (ctx.body as { error: { type: string } }).error.type };
}

/** The types the handler answers each status with, as seen while scanning. */
const typesOfStatus = new Map<number, Set<string>>();

/** The status api/http/error-handler.ts answers a kind with. */
async function statusOf(kind: ErrorKind): Promise<number> {
  const { status, type } = await answerTo(new DomainError(kind, 'probe', 'probe'));
  typesOfStatus.set(status, (typesOfStatus.get(status) ?? new Set()).add(type));
  return status;
}

/** The code and kind api/http/workflow-calls.ts answers a workflow refusal of `type` with. */
async function refusalCode(type: string): Promise<{ code: string; kind: ErrorKind }> {
  const failure = ApplicationFailure.nonRetryable('refused', type);
  const deps = { temporal: { connection: { withDeadline: <T>(_: number, fn: () => Promise<T>) => fn() } }, config: { WORKFLOW_UPDATE_DEADLINE_MS: 1000 } };
  try {
    await runUpdate(deps as never, async () => Promise.reject(new WorkflowUpdateFailedError('refused', failure)), () => new DomainError('conflict', 'closed', 'closed'));
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, kind: err.kind };
    throw err;
  }
  throw new Error(`the refusal ${type} was not turned into an error`);
}

let raised: Map<string, { statuses: Set<number>; where: string[] }>;
let unlistedDynamic: string[];
let staleDynamic: string[];

beforeAll(async () => {
  const { found, dynamic, admissions, refusals } = scan();
  const all: Found[] = [...found];
  for (const type of refusals) all.push({ ...(await refusalCode(type)), where: `workflow refusal '${type}'` });
  const listed = new Set<DynamicSite>();
  unlistedDynamic = [];
  for (const d of dynamic) {
    const site = DYNAMIC_SITES.find((s) => s.file === d.file && d.call.startsWith(s.call));
    if (!site) {
      unlistedDynamic.push(`${d.where}: ${d.call}`);
      continue;
    }
    listed.add(site);
    for (const c of site.codes) {
      const codes = c === 'ADMISSIONS' ? [...admissions] : c === 'WORKFLOW_REFUSALS' ? [] : [c];
      for (const code of codes) all.push({ code, kind: site.kind, where: `${d.where} (${site.why})` });
    }
  }
  staleDynamic = DYNAMIC_SITES.filter((s) => !listed.has(s)).map((s) => `${s.file}: ${s.call}`);
  raised = new Map();
  for (const f of all) {
    const e = raised.get(f.code) ?? { statuses: new Set<number>(), where: [] };
    e.statuses.add(f.status ?? (await statusOf(f.kind)));
    e.where.push(f.where);
    raised.set(f.code, e);
  }
});

test('the scan finds the codes (it is not reading nothing)', () => {
  expect(raised.size).toBeGreaterThan(50);
  for (const code of ['parameter_invalid', 'resource_missing', 'REFUND_CCY_MISMATCH', 'payment_intent_unexpected_state', 'card_declined', 'rate_limited', 'internal_error']) expect(raised.has(code)).toBe(true);
});

test('every call that computes its code is listed in DYNAMIC_SITES, and every listed site still exists', () => {
  expect(unlistedDynamic).toEqual([]);
  expect(staleDynamic).toEqual([]);
});

test('every code the API can answer is in the catalog, with each status it is answered with', () => {
  const byCode = new Map(ERROR_CATALOG.map((e) => [e.code, e]));
  const missing = [...raised.keys()].filter((c) => !byCode.has(c)).map((c) => `${c} (${[...raised.get(c)!.statuses].join(', ')}; ${raised.get(c)!.where[0]})`);
  expect(missing).toEqual([]);
  const wrongStatus = [...raised.entries()]
    .filter(([c, r]) => byCode.has(c) && [...r.statuses].some((s) => !byCode.get(c)!.statuses.includes(s)))
    .map(([c, r]) => `${c}: raised with ${[...r.statuses].join(', ')}, documented ${byCode.get(c)!.statuses.join(', ')}`);
  expect(wrongStatus).toEqual([]);
});

test('every code of the catalog is raised somewhere, with every status it documents', () => {
  const stale = ERROR_CATALOG.filter((e) => !raised.has(e.code)).map((e) => e.code);
  expect(stale).toEqual([]);
  const extraStatus = ERROR_CATALOG.filter((e) => raised.has(e.code) && e.statuses.some((s) => !raised.get(e.code)!.statuses.has(s))).map((e) => `${e.code}: ${e.statuses.join(', ')}`);
  expect(extraStatus).toEqual([]);
});

test('each entry says what it means and what to do, once, with a known status', () => {
  const codes = ERROR_CATALOG.map((e) => e.code);
  expect(codes.filter((c, i) => codes.indexOf(c) !== i)).toEqual([]);
  for (const e of ERROR_CATALOG) {
    expect(e.meaning.length).toBeGreaterThan(10);
    expect(e.action.length).toBeGreaterThan(5);
    for (const s of e.statuses) expect(ERROR_TYPE_OF_STATUS[s]).toBeDefined();
  }
  expect(errorCatalogView().errors).toHaveLength(ERROR_CATALOG.length);
});

test('the error type the catalog publishes for each status is the one the handler answers', async () => {
  const unexpected = await answerTo(new Error('a bug'));
  expect(unexpected).toEqual({ status: 500, type: ERROR_TYPE_OF_STATUS[500] });
  expect(typesOfStatus.size).toBeGreaterThan(5);
  for (const [status, types] of typesOfStatus) expect({ status, types: [...types] }).toEqual({ status, types: [ERROR_TYPE_OF_STATUS[status]] });
});

test('figures: codes documented out of those the scan finds', () => {
  const documented = [...raised.keys()].filter((c) => ERROR_CATALOG.some((e) => e.code === c));
  process.stdout.write(`[error-catalog] ${documented.length}/${raised.size} error codes the scan finds are documented; the catalog has ${ERROR_CATALOG.length} entries\n`);
  expect(documented.length).toBe(raised.size);
});
