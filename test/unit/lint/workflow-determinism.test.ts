// The eslint override for workflows/** (eslint.config.js) is what keeps activity code and Node I/O out of
// the workflow bundle; these cases pin its behaviour through ESLint's own Node API.
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '../../..');
// ESLint loads eslint.config.js with a dynamic import(), which Jest's CommonJS sandbox refuses without
// --experimental-vm-modules; so the test requires the very same file and hands ESLint its array.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(root, 'eslint.config.js')) as ESLint.Options['overrideConfig'];

async function ruleIds(code: string, filePath = 'workflows/fixture.ts'): Promise<string[]> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });
  const [result] = await eslint.lintText(code, { filePath });
  expect(result).toBeDefined();
  return result!.messages.map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('workflow determinism lint rules', () => {
  it('rejects a Node built-in', async () => {
    expect(await ruleIds("import fs from 'fs';\nexport const read = fs.readFileSync;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await ruleIds("import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
  });

  it('rejects a value import from activities', async () => {
    expect(await ruleIds("import { x } from '../activities';\nexport const y = x;\n")).toEqual([
      '@typescript-eslint/no-restricted-imports',
    ]);
    expect(await ruleIds("import { recordCharge } from '../activities/store';\nexport const y = recordCharge;\n")).toEqual([
      '@typescript-eslint/no-restricted-imports',
    ]);
  });

  it('accepts a type-only import from activities', async () => {
    expect(await ruleIds("import type { X } from '../activities';\nexport type Y = X;\n")).toEqual([]);
  });

  it('rejects I/O modules and Math.random, but leaves the workflow clock alone', async () => {
    expect(await ruleIds("import { Client } from '@temporalio/client';\nexport const c = Client;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await ruleIds("import Router from '@koa/router';\nexport const r = Router;\n")).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await ruleIds('export const r = Math.random();\n')).toEqual(['no-restricted-properties']);
    expect(await ruleIds('export const now = Date.now() + new Date().getTime();\n')).toEqual([]);
  });

  it('applies only to workflow (and domain) code', async () => {
    expect(await ruleIds("import fs from 'fs';\nexport const read = fs.readFileSync;\n", 'activities/fixture.ts')).toEqual([]);
    expect(await ruleIds("import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n", 'api/fixture.ts')).toEqual([]);
  });
});
