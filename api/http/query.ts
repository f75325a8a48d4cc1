/**
 * Query strings in the bracket form merchants send (`created[gte]=...`), as nested objects, so one zod
 * schema validates them. Only one level of nesting is needed by the API.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function parseQuery(search: URLSearchParams): Record<string, unknown> {
  // Null-prototype objects, and no prototype keys at all: `?__proto__[x]=y` must not reach Object.prototype.
  const out: Record<string, unknown> = Object.create(null);
  for (const [rawKey, value] of search) {
    const m = /^([^[\]]+)\[([^[\]]*)\]$/.exec(rawKey);
    if (m) {
      const [, key, sub] = m as unknown as [string, string, string];
      if (FORBIDDEN_KEYS.has(key) || FORBIDDEN_KEYS.has(sub)) continue;
      const cur = Object.hasOwn(out, key) ? out[key] : undefined;
      const obj = typeof cur === 'object' && cur !== null && !Array.isArray(cur) ? (cur as Record<string, unknown>) : Object.create(null);
      if (typeof cur === 'string') obj['eq'] = cur;
      obj[sub] = value;
      out[key] = obj;
    } else if (FORBIDDEN_KEYS.has(rawKey)) {
      continue;
    } else if (Object.hasOwn(out, rawKey)) {
      const cur = out[rawKey];
      out[rawKey] = Array.isArray(cur) ? [...cur, value] : [cur, value];
    } else {
      out[rawKey] = value;
    }
  }
  return out;
}
