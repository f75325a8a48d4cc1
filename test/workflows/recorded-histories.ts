import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';

// The recorded histories (`histories/*.bin`, binary temporal.api.history.v1.History) and the workflow types
// they must cover: written by the workflow tests (keepHistory) and the integration suite's teardown
// (test/integration/record-histories.ts), replayed by replay-recorded-histories.test.ts.

const DIR = path.join(__dirname, 'histories');

/** Every workflow type the worker runs, as the bundle's entry (workflows/index.ts) exports them. */
export function workflowTypes(): string[] {
  const index = readFileSync(path.join(__dirname, '../../workflows/index.ts'), 'utf8');
  return [...index.matchAll(/^export \{ (\w+) \}/gm)].map((m) => m[1]!);
}

export const recordedFiles = (): string[] => readdirSync(DIR).filter((f) => f.endsWith('.bin'));

export const readHistory = (file: string) => temporal.api.history.v1.History.decode(readFileSync(path.join(DIR, file)));

export function writeHistory(file: string, history: temporal.api.history.v1.IHistory): void {
  writeFileSync(path.join(DIR, file), temporal.api.history.v1.History.encode(history).finish());
}
