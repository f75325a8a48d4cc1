import { z } from 'zod';
import { parseQuery } from '../../../api/http/query';
import type { RouteDef } from '../../../api/http/route';
import { buildOpenApi, REFERENCE_DOCUMENTS, documentedOperations, type DocumentScope } from '../../../api/openapi/document';
import { catalogEntry, ERROR_TYPE_OF_STATUS } from '../../../api/openapi/error-catalog';
import { EXAMPLES, exampleFor, genericErrorExample, operationKey, type ExampleResponse, type OperationExample } from '../../../api/openapi/examples';
import { allRoutes } from '../../../api/routes';

// Every operation of the API has a request and a response example (api/openapi/examples.ts), each parses
// with the zod schemas that serve the route, and every document the reference shows carries them.

const routes = allRoutes().filter((r) => !r.internal);
const EMPTY = z.object({}).strict();

/** The error shape every 4xx/5xx answers (extra string fields: a decline's `decline_code`, `transaction_uuid`). */
const errorShape = z.object({
  error: z.looseObject({ type: z.string(), code: z.string(), message: z.string(), param: z.string().optional(), request_id: z.string().regex(/^req_/) }),
});

/**
 * Statuses a route documents that no code path answers, so no example can show them (reported to the
 * route's owners; remove an entry once the route stops documenting the status or starts answering it).
 */
const DOCUMENTED_NEVER_ANSWERED: Record<string, number[]> = {
  // api/events/routes.ts documents 409 "its delivery record is gone", but nothing raises a conflict there.
  'POST /v202607/events/:event/redeliver': [409],
};

const problems = (r: { success: boolean; error?: z.ZodError }) => (r.success ? [] : r.error!.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));

function checkResponse(def: RouteDef, r: ExampleResponse): string[] {
  const declared = def.responses[r.status];
  if (!declared && r.status < 400) return [`status ${r.status} is not a response the route declares`];
  if (declared?.schema) return problems(declared.schema.safeParse(r.body)).map((p) => `response ${r.status}: ${p}`);
  if (r.status < 400) return r.body === undefined ? [`response ${r.status}: no body`] : [];
  const out = problems(errorShape.safeParse(r.body)).map((p) => `response ${r.status}: ${p}`);
  const { type, code } = (r.body as { error: { type: string; code: string } }).error;
  const entry = catalogEntry(code);
  if (!entry) out.push(`response ${r.status}: code ${code} is not in the error catalog`);
  else if (!entry.statuses.includes(r.status)) out.push(`response ${r.status}: the catalog answers ${code} with ${entry.statuses.join(', ')}`);
  if (ERROR_TYPE_OF_STATUS[r.status] !== type) out.push(`response ${r.status}: type ${type}, but the API answers ${ERROR_TYPE_OF_STATUS[r.status]}`);
  return out;
}

/** What is wrong with an operation's example, or nothing. */
function checkExample(def: RouteDef, ex: OperationExample): string[] {
  const out: string[] = [];
  const pathParams = [...def.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  if (JSON.stringify(Object.keys(ex.params ?? {}).sort()) !== JSON.stringify([...pathParams].sort()))
    out.push(`params ${Object.keys(ex.params ?? {}).join(',') || '(none)'} for path parameters ${pathParams.join(',') || '(none)'}`);
  if (def.params) out.push(...problems(def.params.safeParse(ex.params ?? {})).map((p) => `params: ${p}`));
  // The query as the server reads it: from the URL, through the same parser.
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(ex.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) search.append(k, one);
  out.push(...problems((def.query ?? EMPTY).safeParse(parseQuery(search))).map((p) => `query: ${p}`));
  if (def.body) {
    if (ex.body === undefined) out.push('no request body');
    else out.push(...problems(def.body.safeParse(ex.body)).map((p) => `body: ${p}`));
  } else if (ex.body !== undefined) out.push('a body for a route that takes none');
  if (ex.response.status >= 300) out.push(`the main response is a ${ex.response.status}: show the success first`);
  const answers = [ex.response, ...(ex.more ?? [])];
  for (const r of answers) out.push(...checkResponse(def, r));
  // Every status the route documents shows an example: its own, or (errors) the commonest of the status.
  for (const status of Object.keys(def.responses).map(Number)) {
    if (answers.some((r) => r.status === status) || DOCUMENTED_NEVER_ANSWERED[operationKey(def)]?.includes(status)) continue;
    const generic = status >= 400 ? genericErrorExample(status, def.auth) : null;
    if (!generic) out.push(`no example for the documented status ${status}`);
    else out.push(...checkResponse(def, generic));
  }
  const fallback = genericErrorExample('default', def.auth, Object.keys(def.responses).map(Number));
  if (fallback && def.responses[fallback.status]) out.push(`the default example's status ${fallback.status} is one the route declares`);
  if (fallback) out.push(...checkResponse(def, fallback));
  return out;
}

test('every operation has an example', () => {
  const missing = routes.filter((def) => !exampleFor(def)).map(operationKey);
  // Add one to api/openapi/examples.ts under this key for each operation listed.
  expect(missing).toEqual([]);
});

test('every example names an operation of the API', () => {
  const keys = new Set(routes.map(operationKey));
  expect(Object.keys(EXAMPLES).filter((k) => !keys.has(k))).toEqual([]);
});

describe.each(routes.map((def) => [operationKey(def), def] as const))('%s', (_key, def) => {
  test('its example parses with the route\'s schemas', () => {
    const ex = exampleFor(def);
    if (!ex) return; // reported by 'every operation has an example'
    expect(checkExample(def, ex)).toEqual([]);
  });
});

describe.each(['all', ...REFERENCE_DOCUMENTS.map((d) => d.name)] as DocumentScope[])('the %s document', (scope) => {
  const doc = buildOpenApi(allRoutes(), scope) as unknown as {
    paths: Record<string, Record<string, {
      parameters?: { in: string; examples?: unknown }[];
      requestBody?: { content: Record<string, { examples?: unknown }> };
      responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
    }>>;
  };
  const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));

  test('has operations, each with its request and response examples', () => {
    expect(ops.length).toBe(documentedOperations(allRoutes(), scope).length);
    expect(ops.length).toBeGreaterThan(0);
    const without = ops.filter(({ op }) => {
      const bodyOk = !op.requestBody || Object.values(op.requestBody.content).every((m) => m.examples);
      const paramsOk = (op.parameters ?? []).filter((p) => p.in === 'path').every((p) => p.examples);
      const successes = Object.entries(op.responses).filter(([s]) => /^2/.test(s));
      // A success without a schema carries its example only in the reference's documents.
      const responseOk = successes.some(([, r]) => Object.values(r.content ?? {}).some((m) => m.examples) || (scope === 'all' && !r.content));
      return !(bodyOk && paramsOk && responseOk);
    });
    expect(without.map((o) => o.key)).toEqual([]);
  });
});

test('figures: operations with examples', () => {
  const withExample = routes.filter((def) => exampleFor(def) && checkExample(def, exampleFor(def)!).length === 0);
  const unvalidated = routes.filter((def) => {
    const ex = exampleFor(def);
    return ex && !def.responses[ex.response.status]?.schema;
  });
  const docs = ['all', ...REFERENCE_DOCUMENTS.map((d) => d.name)].map((scope) => `${scope}: ${documentedOperations(allRoutes(), scope as DocumentScope).length}`);
  process.stdout.write(
    `[openapi-examples] ${withExample.length}/${routes.length} operations have a valid request and response example; ` +
      `${unvalidated.length} success responses are declared without a schema (${unvalidated.map(operationKey).join(', ')}); ` +
      `operations per document: ${docs.join(', ')}\n`,
  );
  expect(withExample.length).toBe(routes.length);
});
