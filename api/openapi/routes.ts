import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { contentSecurityPolicy, pageHeaders } from '../hosted/csp';
import { assetFile, serveAsset, staticAsset, type StaticAsset } from '../hosted/static-asset';
import { route, type RouteDef, type RouteResult } from '../http/route';
import { changelogPage } from './changelog';
import { docsPage } from './docs-page';
import { buildOpenApi, isReferenceDocument, REFERENCE_DOCUMENTS, type ReferenceDocumentName } from './document';
import { errorCatalogView } from './error-catalog';

export { buildOpenApi } from './document';

// /openapi.json (the whole service: what clients are generated from), one document per interface for the
// reference (/openapi/v202608.json, ...), the reference itself at /docs, its changelog and error catalog,
// and the reference's assets. All built on first use and kept: the routes do not change while we run.

/**
 * The CSP of /docs: the hosted pages' policy (scripts from our origin only, no eval, connections to our
 * origin only, no framing), except that the renderer injects its stylesheets as <style> elements and sets
 * style attributes at run time, which `style-src` must allow inline. Nothing else is relaxed.
 */
export function docsCsp(): string {
  return contentSecurityPolicy({ frameAncestors: 'none' }).replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
}

/** The renderer: @scalar/api-reference's standalone bundle, read from node_modules on first use. */
function scalarBundle(): StaticAsset & { gzip: Buffer } {
  const dist = dirname(require.resolve('@scalar/api-reference'));
  // The bundle names a source map we do not serve.
  const body = readFileSync(join(dist, 'browser', 'standalone.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return { ...staticAsset(body, 'text/javascript; charset=utf-8'), gzip: gzipSync(body, { level: 9 }) };
}

function ownAsset(name: string, contentType: string): StaticAsset {
  return staticAsset(readFileSync(join(__dirname, 'assets', name), 'utf8'), contentType);
}

let assets: { scalar: StaticAsset & { gzip: Buffer }; docsJs: StaticAsset; docsCss: StaticAsset; favicon: StaticAsset } | null = null;
function docsAssets() {
  return (assets ??= {
    scalar: scalarBundle(),
    docsJs: ownAsset('docs.js', 'text/javascript; charset=utf-8'),
    docsCss: ownAsset('docs.css', 'text/css; charset=utf-8'),
    favicon: assetFile('favicon.svg', 'image/svg+xml; charset=utf-8'),
  });
}

const ASSET_FILES = { 'scalar.js': 'scalar', 'docs.js': 'docsJs', 'docs.css': 'docsCss', 'favicon.svg': 'favicon' } as const;
type AssetFile = keyof typeof ASSET_FILES;
const assetUrl = (file: AssetFile) => `/docs/assets/${file}?v=${docsAssets()[ASSET_FILES[file]].version}`;

const common = { versions: 'unversioned' as const, auth: 'none' as const, internal: true, tags: ['Operations'] };

const json = (body: unknown): RouteResult => ({ status: 200, body, headers: { 'Cache-Control': 'no-cache' } });

export function openApiRoutes(routes: RouteDef[]): RouteDef[] {
  let full: unknown = null;
  const documents = new Map<ReferenceDocumentName, unknown>();
  // The reference's documents name their server relative to where they are served ("this host"), so its
  // request samples and try-it address the host the reader has open, whatever the deployment calls itself.
  const documentOf = (name: ReferenceDocumentName) => {
    if (!documents.has(name)) documents.set(name, { ...buildOpenApi(routes, name), servers: [{ url: '/', description: 'This host' }] });
    return documents.get(name);
  };
  return [
    {
      ...common,
      method: 'get',
      path: '/openapi.json',
      summary: 'OpenAPI 3.1 document of the whole service',
      responses: { 200: { description: 'The document' } },
      handler: async () => json((full ??= buildOpenApi(routes))),
    },
    route({
      ...common,
      method: 'get',
      path: '/openapi/:document',
      summary: `One interface's OpenAPI 3.1 document, as the reference shows it (${REFERENCE_DOCUMENTS.map((d) => `${d.name}.json`).join(', ')})`,
      params: z.object({ document: z.string().max(40) }),
      responses: { 200: { description: 'The document' }, 404: { description: 'No such document' } },
      handler: async ({ params }) => {
        const name = params.document.replace(/\.json$/, '');
        if (!params.document.endsWith('.json') || !isReferenceDocument(name)) throw notFound('OpenAPI document', params.document, 'document');
        return json(documentOf(name));
      },
    }),
    {
      ...common,
      method: 'get',
      path: '/docs',
      summary: 'API reference (Scalar), every interface selectable',
      responses: { 200: { description: 'HTML' } },
      handler: async () => ({
        status: 200,
        body: docsPage({ scalarJs: assetUrl('scalar.js'), docsJs: assetUrl('docs.js'), favicon: assetUrl('favicon.svg') }),
        headers: pageHeaders(docsCsp()),
      }),
    },
    {
      ...common,
      method: 'get',
      path: '/docs/changelog',
      summary: 'Changelog of the API versions',
      responses: { 200: { description: 'HTML' } },
      handler: async () => ({ status: 200, body: changelogPage(routes, { css: assetUrl('docs.css'), favicon: assetUrl('favicon.svg') }), headers: pageHeaders(contentSecurityPolicy({ frameAncestors: 'none' })) }),
    },
    {
      ...common,
      method: 'get',
      path: '/docs/errors.json',
      summary: 'The error catalog: every code the API answers, its status, meaning and what to do',
      responses: { 200: { description: 'The catalog' } },
      handler: async () => json(errorCatalogView()),
    },
    route({
      ...common,
      method: 'get',
      path: '/docs/assets/:file',
      summary: "The reference's scripts and styles",
      params: z.object({ file: z.string().max(40) }),
      query: z.looseObject({}),
      responses: { 200: { description: 'The file' }, 404: { description: 'No such file' } },
      handler: async ({ params, ctx }) => {
        if (!Object.hasOwn(ASSET_FILES, params.file)) throw notFound('asset', params.file, 'file');
        const asset = docsAssets()[ASSET_FILES[params.file as AssetFile]];
        const res = serveAsset(asset, ctx, 'versioned');
        // Same-origin only, unlike the hosted page's assets that merchants' pages load.
        res.headers = { ...res.headers, 'Cross-Origin-Resource-Policy': 'same-origin' };
        if ('gzip' in asset) {
          res.headers['Vary'] = 'Accept-Encoding';
          if (res.status === 200 && /\bgzip\b/.test(ctx.get('accept-encoding'))) {
            res.body = asset.gzip;
            res.headers['Content-Encoding'] = 'gzip';
          }
        }
        return res;
      },
    }),
  ];
}
