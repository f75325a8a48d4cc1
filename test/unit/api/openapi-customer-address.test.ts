import { buildOpenApi } from '../../../api/openapi/document';
import { allRoutes } from '../../../api/routes';

// Customers answer `address` from v202608 on (the changelog says so), and take it there: the documents
// describe exactly that, v202607's without it, v202608's and the whole service's with it.

const routes = allRoutes();
type Schema = { properties?: Record<string, unknown>; additionalProperties?: unknown };
type Doc = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };
const docOf = (scope: 'all' | 'v202607' | 'v202608') => buildOpenApi(routes, scope) as unknown as Doc;
const answered = (doc: Doc, path: string, method: string, status: string) => doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema;
const taken = (doc: Doc, path: string, method: string) => doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema;

test.each(['all', 'v202608'] as const)('the %s document: v202608 customers take and answer an address', (scope) => {
  const doc = docOf(scope);
  expect(Object.keys(answered(doc, '/v202608/customers/{customer}', 'get', '200')?.properties ?? {})).toContain('address');
  expect(Object.keys(answered(doc, '/v202608/customers', 'post', '201')?.properties ?? {})).toContain('address');
  expect(Object.keys(taken(doc, '/v202608/customers', 'post')?.properties ?? {})).toContain('address');
  expect(Object.keys(taken(doc, '/v202608/customers/{customer}', 'post')?.properties ?? {})).toContain('address');
});

test('v202607 customers neither take nor answer one', () => {
  const doc = docOf('v202607');
  expect(answered(doc, '/v202607/customers/{customer}', 'get', '200')).toMatchObject({ additionalProperties: false });
  expect(Object.keys(answered(doc, '/v202607/customers/{customer}', 'get', '200')?.properties ?? {})).not.toContain('address');
  expect(Object.keys(taken(doc, '/v202607/customers', 'post')?.properties ?? {})).not.toContain('address');
});
