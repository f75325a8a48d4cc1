import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Fills examples/http/payorch.http's variables (`@name = value` lines) with real values: `npm run dev`
// writes the demo tenant's copy to .data/payorch.http, and the client's integration test runs a copy
// filled with its own tenant's keys against the test stack.

export const HTTP_TEMPLATE = path.join(__dirname, 'payorch.http');

export interface CollectionValues {
  baseUrl: string;
  secretKey: string;
  publishableKey: string;
  adminToken: string;
  tenant: string;
}

export function fillCollection(values: CollectionValues, template = readFileSync(HTTP_TEMPLATE, 'utf8')): string {
  const missing = new Set(Object.keys(values));
  const filled = template.replace(/^@(\w+) = .*$/gm, (line, name: string) => {
    if (!Object.hasOwn(values, name)) return line;
    missing.delete(name);
    return `@${name} = ${values[name as keyof CollectionValues]}`;
  });
  if (missing.size) throw new Error(`payorch.http has no @${[...missing].join(', @')} line`);
  return `# Filled in from examples/http/payorch.http with real keys: keep it out of version control.\n${filled}`;
}

/** Writes the filled collection to `file` (readable by its owner only: it holds keys). */
export function writeFilledCollection(values: CollectionValues, file: string): void {
  writeFileSync(file, fillCollection(values), { mode: 0o600 });
}
