import type { z } from 'zod';
import { invalidRequest } from '../../domain/errors';

/** What a schema's own rule passes as a custom issue's params when a parameter is required but absent. */
export const MISSING = { missing: true } as const;

/**
 * A union's failure says only "Invalid input" at the union (`customer`: an id or an object). When the value is
 * of one branch's type (an object, not the id's string), that branch's own first issue names the field inside
 * (`customer[first_name]`); followed down through nested unions.
 */
function branchIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  let current = issue;
  while (current.code === 'invalid_union' && current.errors.length) {
    const ofItsType = current.errors.filter((b) => b.length > 0 && !(b[0]!.code === 'invalid_type' && b[0]!.path.length === 0));
    if (ofItsType.length !== 1) break;
    const inner = ofItsType[0]![0]!;
    current = { ...inner, path: [...current.path, ...inner.path] } as z.core.$ZodIssue;
  }
  return current;
}

/**
 * Whether the input leaves out the field at an issue's path: its parent is an object without it. A path through
 * something that is not an object (a value a transform turned into another shape) is not read as absent.
 */
function absentAt(value: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return value === undefined;
  let parent = value;
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  return parent !== null && typeof parent === 'object' && !Array.isArray(parent) && (parent as Record<PropertyKey, unknown>)[path.at(-1)!] === undefined;
}

/** zod result -> the first issue as a 400 naming the parameter, in the bracket form clients send. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, where: 'body' | 'query' | 'path'): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = branchIssue(r.error.issues[0]!);
  const path = issue.path.map(String);
  let param = path.length ? path[0] + path.slice(1).map((p) => `[${p}]`).join('') : undefined;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    param = param ? `${param}[${key}]` : key;
    message = `Received unknown parameter: ${param}`;
    return (() => {
      throw invalidRequest('parameter_unknown', message, param);
    })();
  }
  // A missing parameter is `parameter_missing` whether zod or a rule of the schema (one required only with or
  // without another, MISSING) found it.
  const missingByRule = issue.code === 'custom' && (issue.params as { missing?: boolean } | undefined)?.missing === true;
  // A required choice (z.enum, z.literal) left out is reported as a wrong value, not a wrong type: read the input.
  const absentChoice = issue.code === 'invalid_value' && absentAt(value, issue.path);
  if (missingByRule || absentChoice || (issue.code === 'invalid_type' && issue.input === undefined && /received undefined/.test(issue.message))) {
    return (() => {
      throw invalidRequest('parameter_missing', `Missing required parameter: ${param ?? where}`, param);
    })();
  }
  throw invalidRequest('parameter_invalid', param ? `Invalid ${param}: ${message}` : `Invalid ${where}: ${message}`, param);
}
