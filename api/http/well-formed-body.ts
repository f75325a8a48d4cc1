import type { Context, Next } from 'koa';
import { DomainError } from '../../domain/errors';

// What every parsed body must be, whatever the route: text that is Unicode, nesting within a bound, and no
// prototype keys. One iterative walk, so no body, however deep, can overflow the stack here.

/**
 * How deep objects and arrays may nest in a body, counting the body itself as 1. The deepest shape the API
 * documents is a handful of levels (a checkout's line items, a customer's address inside an intent), and free
 * JSON (an older intent's `payload`, metadata) has no reason to go far; past some thousands of levels the
 * recursive steps after this one (zod, JSON.stringify, BSON) overflow the stack and answered 500.
 */
export const MAX_BODY_DEPTH = 64;

/** A node of the walk: its parent and its own key or index, so a path is built only for an error. */
interface Node {
  value: unknown;
  parent: Node | null;
  segment: string;
  depth: number;
}

// Node 20 has String.prototype.isWellFormed; the ES2022 lib the project compiles against does not declare it.
const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

const PROTO_MESSAGE = "The request body has a key '__proto__' (or 'constructor' with 'prototype'): such keys are refused anywhere in a body";

/** Refuses a body with a string or key that is not well-formed Unicode, nested too deep, or with a prototype key. */
export function checkBody(body: unknown): void {
  const stack: Node[] = [{ value: body, parent: null, segment: '', depth: 0 }];
  while (stack.length) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) throw notUnicode(pathOf(node), 'is');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const depth = node.depth + 1;
    if (depth > MAX_BODY_DEPTH) throw tooDeep(node);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ value: value[i], parent: node, segment: String(i), depth });
      continue;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    for (const key of keys) {
      // The holding object is named: the key itself cannot be shown as sent.
      if (!isWellFormed(key)) throw notUnicode(pathOf(node), 'has a key that is');
      const child = record[key];
      if (key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')))
        throw new DomainError('invalid_request', 'parameter_invalid', PROTO_MESSAGE, pathOf(node));
    }
    // Pushed last to first, so the first field in the body is the one an error names.
    for (let i = keys.length - 1; i >= 0; i -= 1) stack.push({ value: record[keys[i]!], parent: node, segment: keys[i]!, depth });
  }
}

/** The body check as middleware: after the body is read, before any route sees it. */
export async function wellFormedBody(ctx: Context, next: Next): Promise<void> {
  const body = (ctx.request as { body?: unknown }).body;
  if (body !== undefined) checkBody(body);
  await next();
}

/** The bracket form the validation errors use (`customer[first_name]`, `webhooks[0][url]`); undefined for the body. */
function pathOf(node: Node): string | undefined {
  const segments: string[] = [];
  for (let n: Node | null = node; n?.parent; n = n.parent) segments.push(n.segment);
  segments.reverse();
  return segments.length ? segments[0] + segments.slice(1).map((s) => `[${s}]`).join('') : undefined;
}

function notUnicode(param: string | undefined, what: string): DomainError {
  const where = param ? `Invalid ${param}: it ${what}` : `The request body ${what}`;
  return new DomainError('invalid_request', 'parameter_invalid', `${where} not well-formed Unicode (a lone UTF-16 surrogate, such as \\ud800 with no pair)`, param);
}

function tooDeep(node: Node): DomainError {
  let top: Node = node;
  while (top.parent?.parent) top = top.parent;
  // A body that is itself an array (no route takes one) has no field to name.
  const param = top.parent && !Array.isArray(top.parent.value) ? top.segment : undefined;
  const what = param ? `Invalid ${param}: it nests` : 'The request body nests';
  return new DomainError('invalid_request', 'parameter_invalid', `${what} objects and arrays deeper than ${MAX_BODY_DEPTH} levels`, param);
}
