import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { allRoutes } from '../../../api/routes';
import { GENERATED_FILE, serverDocument } from '../../../scripts/generate-client';

// The committed client must be what the generator makes of the document the server builds now: a route
// whose zod schema changed without `npm run generate:client` fails here. The generator runs in a child
// process (tsx) because Jest cannot load openapi-typescript's ES-module dependencies; it builds the
// document in-process there (buildOpenApi(allRoutes()), as /openapi.json does) and prints the source.

const ROOT = path.join(__dirname, '..', '..', '..');

test('the generator reads the very document GET /openapi.json serves', async () => {
  const route = allRoutes().find((r) => r.method === 'get' && r.path === '/openapi.json');
  const served = await route!.handler({} as Parameters<NonNullable<typeof route>['handler']>[0]);
  expect(JSON.parse(JSON.stringify(served.body))).toEqual(JSON.parse(JSON.stringify(serverDocument())));
});

test('clients/typescript/src/generated/schema.ts is up to date with the server document (else: npm run generate:client)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/generate-client.ts', '--stdout'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const committed = readFileSync(GENERATED_FILE, 'utf8');
  if (stdout !== committed) {
    const a = committed.split('\n');
    const b = stdout.split('\n');
    const at = a.findIndex((line, i) => line !== b[i]);
    const line = at === -1 ? Math.min(a.length, b.length) : at;
    throw new Error(
      `the generated client is out of date with the server's OpenAPI document: run npm run generate:client\n` +
        `first difference at line ${line + 1}:\n  committed: ${JSON.stringify(a[line])}\n  generated: ${JSON.stringify(b[line])}`,
    );
  }
  expect(stdout.length).toBeGreaterThan(1000);
}, 120_000);
