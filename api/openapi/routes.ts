import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { RouteDef } from '../http/route';
import { docsPage } from './docs-page';

/** The OpenAPI 3.1 document, generated from the same route objects and zod schemas that serve requests. */
export function buildOpenApi(routes: RouteDef[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'secretKey', { type: 'http', scheme: 'bearer', description: 'sk_<region>_... secret key' });
  registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer', description: 'ADMIN_API_TOKEN' });
  const errorSchema = z.object({
    error: z.object({ type: z.string(), code: z.string(), message: z.string(), param: z.string().optional(), request_id: z.string() }),
  });
  for (const r of routes) {
    if (r.internal) continue;
    const paths = r.versions === 'unversioned' ? [r.path] : r.versions.map((v) => `/${v}${r.path}`);
    for (const path of paths) {
      registry.registerPath({
        method: r.method,
        path: path.replace(/:([A-Za-z_]+)/g, '{$1}'),
        summary: r.summary,
        tags: r.tags,
        security: r.auth === 'secret' ? [{ secretKey: [] }] : r.auth === 'admin' ? [{ adminToken: [] }] : [],
        request: {
          ...(r.params ? { params: r.params as z.ZodObject } : {}),
          ...(r.query ? { query: r.query as z.ZodObject } : {}),
          ...(r.body ? { body: { content: { 'application/json': { schema: r.body } } } } : {}),
        },
        responses: Object.fromEntries([
          // Any status a route does not list (400, 401, 404, 429, 503, ...) is an error in the one shape.
          ['default', { description: 'An error', content: { 'application/json': { schema: errorSchema } } }],
          ...Object.entries(r.responses).map(([status, resp]) => [
            status,
            {
              description: resp.description,
              ...(resp.schema ? { content: { 'application/json': { schema: resp.schema } } } : Number(status) >= 400 ? { content: { 'application/json': { schema: errorSchema } } } : {}),
            },
          ]),
        ]),
      });
    }
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Payment orchestration API',
      version: '2026-08',
      description: 'Versioned merchant API (v202607, v202608 with fallback), admin API and operations endpoints.',
    },
  });
}

export function openApiRoutes(routes: RouteDef[]): RouteDef[] {
  let cached: unknown = null;
  return [
    {
      method: 'get',
      path: '/openapi.json',
      versions: 'unversioned',
      auth: 'none',
      internal: true,
      summary: 'OpenAPI 3.1 document',
      tags: ['Operations'],
      responses: { 200: { description: 'The document' } },
      handler: async () => ({ status: 200, body: (cached ??= buildOpenApi(routes)) }),
    },
    {
      method: 'get',
      path: '/docs',
      versions: 'unversioned',
      auth: 'none',
      internal: true,
      summary: 'Human-readable API reference',
      tags: ['Operations'],
      responses: { 200: { description: 'HTML' } },
      handler: async () => ({ status: 200, body: docsPage(), headers: { 'Content-Type': 'text/html; charset=utf-8' } }),
    },
  ];
}
