/**
 * Query strings in the bracket form merchants send (`created[gte]=...`), as nested objects, so one zod
 * schema validates them. Only one level of nesting is needed by the API.
 */
export function parseQuery(search: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of search) {
    const m = /^([^[\]]+)\[([^[\]]*)\]$/.exec(rawKey);
    if (m) {
      const [, key, sub] = m as unknown as [string, string, string];
      const cur = out[key];
      const obj = typeof cur === 'object' && cur !== null && !Array.isArray(cur) ? (cur as Record<string, unknown>) : {};
      if (typeof cur === 'string') obj['eq'] = cur;
      obj[sub] = value;
      out[key] = obj;
    } else if (rawKey in out) {
      const cur = out[rawKey];
      out[rawKey] = Array.isArray(cur) ? [...cur, value] : [cur, value];
    } else {
      out[rawKey] = value;
    }
  }
  return out;
}
