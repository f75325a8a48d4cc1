import path from 'node:path';
import type { Page } from 'playwright-core';
import { ERROR_CATALOG } from '../../api/openapi/error-catalog';
import { ARTIFACTS, useBrowser } from './browser';
import { api, getStack } from './harness';

// The API reference at /docs as a merchant reads it, in headless Chromium against the running API: Scalar's
// bundle served by us under the page's CSP (nothing loaded from anywhere else), one document per interface
// in the switch, the examples of an operation, the error catalog and the changelog. Screenshots land in
// test/artifacts/docs-*.png (git-ignored) for a human look.

const { newPage } = useBrowser();

interface Watched {
  page: Page;
  /** Requests to any other origin than the API's. */
  foreign: string[];
  /** CSP violations the page reported. */
  violations: string[];
}

async function openDocs(): Promise<Watched> {
  const page = await newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const origin = new URL(getStack().apiUrl).origin;
  const foreign: string[] = [];
  const violations: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportViolation: (v: string) => void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(`${getStack().apiUrl}/docs`);
  await page.getByRole('heading', { name: 'Payment orchestration API: v202608 (latest)' }).waitFor({ timeout: 30_000 });
  return { page, foreign, violations };
}

/** zod's feature probe inside the bundle (`Function('')` in a try) is the one thing the CSP refuses. */
const realViolations = (v: string[]) => v.filter((x) => x !== 'script-src eval');

const sidebar = (page: Page, name: string) => page.locator('aside').getByText(name, { exact: true }).first();

test('the reference renders from our own origin, under the hosted pages\' CSP', async () => {
  const r = await api.get('/docs');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-security-policy')).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  expect(r.body).not.toMatch(/<script>(?!<\/script>)/); // no inline script: configuration is a JSON data block
  // Each document of the switch is served on its own; anything else is a 404 in the API's error shape.
  for (const name of ['v202608', 'v202607', 'v202606', 'unversioned', 'admin']) expect((await api.get(`/openapi/${name}.json`)).body.openapi).toBe('3.1.0');
  expect((await api.get('/openapi/v202501.json')).body.error.code).toBe('resource_missing');

  const { page, foreign, violations } = await openDocs();
  await expect(page.getByText('Getting started').first().isVisible()).resolves.toBe(true);
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs-1-overview.png') });
  expect(foreign).toEqual([]);
  expect(realViolations(violations)).toEqual([]);
  await page.close();
});

test('an operation shows its request and response examples', async () => {
  const { page, violations } = await openDocs();
  await sidebar(page, 'Payment intents').click();
  await sidebar(page, 'Create a payment intent, optionally pinned to a payment form, orchestrator or connector').click();
  // The request sample carries the example's body; the response panel the example's answer.
  await page.getByText('"order-1043"').first().waitFor();
  // The response panel opens on the first documented status (200: the idempotent replay) with its example.
  await expect(page.getByText('The same idempotency_key again: the intent it made, as it is now').first().isVisible()).resolves.toBe(true);
  await page.mouse.wheel(0, 600);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs-2-operation.png') });
  expect(realViolations(violations)).toEqual([]);
  await page.close();
});

test('the error catalog is a section of the reference, and JSON at /docs/errors.json', async () => {
  const catalog = await api.get('/docs/errors.json');
  expect(catalog.status).toBe(200);
  expect(catalog.body.errors).toHaveLength(ERROR_CATALOG.length);

  const { page } = await openDocs();
  await sidebar(page, 'Introduction').click();
  await sidebar(page, 'Error codes').click();
  await page.getByText('REFUND_RQST_AMT_GREATER_THAN_TX_AMT', { exact: true }).first().waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs-3-errors.png') });
  await page.close();
});

test('every interface is one document in the switch', async () => {
  const { page } = await openDocs();
  await page.getByText('v202608 (latest)', { exact: true }).first().click();
  for (const title of ['v202607', 'v202606 (older)', 'Version-neutral interface', 'Admin and operations'])
    await page.getByRole('option', { name: title }).or(page.getByText(title, { exact: true })).first().waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs-4-versions.png') });

  await page.getByText('Version-neutral interface', { exact: true }).first().click();
  await page.getByRole('heading', { name: 'Payment orchestration API: Version-neutral interface' }).waitFor();
  await expect(sidebar(page, 'Payouts').isVisible()).resolves.toBe(true);
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs-5-version-neutral.png') });
  await page.close();
});

test('the changelog of the versions is reachable from the reference', async () => {
  const { page } = await openDocs();
  await page.getByRole('link', { name: '/docs/changelog' }).first().click();
  await page.getByRole('heading', { name: 'API changelog' }).waitFor();
  for (const v of ['v202502', 'v202606', 'v202607', 'v202608']) await expect(page.getByRole('heading', { name: v, exact: true }).isVisible()).resolves.toBe(true);
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs-6-changelog.png'), fullPage: true });
  await page.close();
});
