// The import directions of docs/architecture.md, pinned through ESLint's own Node API (see
// workflow-determinism.test.ts for why the config is required rather than loaded).
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(root, 'eslint.config.js')) as ESLint.Options['overrideConfig'];

async function restricted(filePath: string, code: string): Promise<boolean> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.some((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
}

test.each([
  ['api/refunds/fixture.ts', "import { refundWorkflow } from '../../workflows/refund/workflow';\nexport const w = refundWorkflow;\n"],
  ['api/refunds/fixture.ts', "import { createActivities } from '../../activities';\nexport const a = createActivities;\n"],
  ['api/refunds/fixture.ts', "import { createSandboxApp } from '../../sandbox/app';\nexport const s = createSandboxApp;\n"],
  ['activities/fixture.ts', "import type { RefundInput } from '../workflows/refund/messages';\nexport type R = RefundInput;\n"],
  ['activities/fixture.ts', "import { errorBody } from '../api/http/error-handler';\nexport const e = errorBody;\n"],
  ['gateways/fixture.ts', "import { loadConfig } from '../platform/config';\nexport const c = loadConfig;\n"],
  ['gateways/fixture.ts', "import type { Activities } from '../activities';\nexport type A = Activities;\n"],
  ['sandbox/fixture.ts', "import { newId } from '../platform/ids';\nexport const n = newId;\n"],
  ['platform/fixture.ts', "import { allRoutes } from '../api/routes';\nexport const r = allRoutes;\n"],
  ['data/fixture.ts', "import { createActivities } from '../activities';\nexport const a = createActivities;\n"],
])('%s may not import this: %s', async (file, code) => {
  expect(await restricted(file, code)).toBe(true);
});

test.each([
  ['api/refunds/fixture.ts', "import { admitRefundUpdate } from '../../workflows/payment-intent/messages';\nexport const u = admitRefundUpdate;\n"],
  ['api/refunds/fixture.ts', "import { SA } from '../../workflows/search-attributes';\nexport const s = SA;\n"],
  ['api/refunds/fixture.ts', "import type { paymentIntentWorkflow } from '../../workflows/payment-intent/workflow';\nexport type W = typeof paymentIntentWorkflow;\n"],
  ['api/refunds/fixture.ts', "import type { GatewayRegistry } from '../../gateways/registry';\nexport type G = GatewayRegistry;\n"],
  ['activities/fixture.ts', "import { callbackUrl } from '../gateways/callback-url';\nexport const c = callbackUrl;\n"],
  ['sandbox/fixture.ts', "import { createLogger } from '../platform/logger';\nexport const l = createLogger;\n"],
  ['workflows/refund/fixture.ts', "import type { Activities } from '../../activities';\nexport type A = Activities;\n"],
])('%s may import this: %s', async (file, code) => {
  expect(await restricted(file, code)).toBe(false);
});

test('routes and services reach MongoDB through the data layer, never the driver', async () => {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  const lint = async (code: string) => (await eslint.lintText(code, { filePath: 'api/refunds/fixture.ts' }))[0]!.messages.map((m) => m.ruleId);
  expect(await lint("export const f = (deps: any) => deps.mongo.c.refunds.findOne({});\n")).toContain('no-restricted-syntax');
  expect(await lint("export const f = (mongo: any) => mongo.c.refunds.findOne({});\n")).toContain('no-restricted-syntax');
  expect(await lint("import { refundData } from '../../data/refunds';\nexport const f = (deps: any) => refundData(deps.mongo).find('t', 'r');\n")).not.toContain('no-restricted-syntax');
});

test('activities reach MongoDB through the data layer too, however the driver is spelled', async () => {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  const lint = async (code: string) => (await eslint.lintText(code, { filePath: 'activities/fixture.ts' }))[0]!.messages.map((m) => m.ruleId);
  expect(await lint("export const f = (mongo: any) => mongo.c.refunds.findOne({});\n")).toContain('no-restricted-syntax');
  expect(await lint("export const f = (deps: any) => deps.mongo.c.refunds.findOne({});\n")).toContain('no-restricted-syntax');
  expect(await lint("export const f = (mongo: any) => { const { c } = mongo; return c.refunds.findOne({}); };\n")).toContain('no-restricted-syntax');
  expect(await lint("import { workflowRecordData } from '../data/workflow-records';\nexport const f = (mongo: any) => workflowRecordData(mongo).saveRefund('re_1', 2, {} as any);\n")).not.toContain('no-restricted-syntax');
});
