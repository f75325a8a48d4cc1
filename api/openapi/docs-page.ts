import { escapeHtml as esc, jsonForScript } from '../hosted/html';
import { REFERENCE_DOCUMENTS } from './document';

// /docs: Scalar's API reference (the standalone bundle of @scalar/api-reference, served by us from
// node_modules: no CDN) over one OpenAPI document per interface, picked in the page's document switch.
// The page has no inline script: its configuration is a JSON data block that our own docs.js reads, so the
// CSP allows scripts from our origin only (see docsCsp in ./routes.ts for what the renderer needs).

export interface DocsAssets {
  /** The renderer bundle, with its content hash (`?v=`). */
  scalarJs: string;
  /** Our bootstrap: reads the configuration block and mounts the reference. */
  docsJs: string;
  favicon: string;
}

/** The renderer's configuration: the documents, and everything that would call a third party turned off. */
export function docsConfiguration() {
  return {
    sources: REFERENCE_DOCUMENTS.map((d, i) => ({ title: d.title, slug: d.name, url: `/openapi/${d.name}.json`, default: i === 0, agent: { disabled: true } })),
    // No font CDN, no telemetry, no hosted proxy, no AI agent: the page talks to our origin only.
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    mcp: { disabled: true },
    hideClientButton: false,
    documentDownloadType: 'json',
    defaultOpenAllTags: false,
    expandAllResponses: true,
    orderRequiredPropertiesFirst: true,
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    metaData: { title: 'Payment orchestration API reference' },
  };
}

export function docsPage(assets: DocsAssets): string {
  const config = jsonForScript(docsConfiguration());
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Payment orchestration API reference</title>
<link rel="icon" href="${esc(assets.favicon)}" type="image/svg+xml">
</head><body>
<div id="app"><noscript>The reference needs JavaScript. The documents it shows: ${REFERENCE_DOCUMENTS.map((d) => `<a href="/openapi/${d.name}.json">${esc(d.title)}</a>`).join(', ')}; the <a href="/docs/changelog">changelog</a>; the <a href="/docs/errors.json">error codes</a>.</noscript></div>
<script id="docs-config" type="application/json">${config}</script>
<script src="${esc(assets.scalarJs)}"></script>
<script src="${esc(assets.docsJs)}"></script>
</body></html>`;
}
