// ISO 8601 instants as the API reads them in query strings (the cursor lists' `created`, the page-numbered
// lists' date filters): one parser, so both read a date the same way. The cursor lists use its precision (a
// bound names the whole day or second); the page-numbered ones compare instants, as nestjs-paginate does.

const DAY = 86_400_000;
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date (`2026-01-01`, midnight UTC) or date-time (`2026-01-01T10:00:00Z`, `...+01:00`), with the
 * precision it was written with (a day, a minute, a second, a fraction), or null. A day not on the calendar
 * is refused rather than rolled over (Date.parse makes 2026-02-30 a day in March), and a date-time without a
 * zone is UTC, so the answer does not depend on the server's zone.
 */
export function parseIsoInstant(raw: string): { at: Date; precisionMs: number } | null {
  const s = raw.trim();
  const m = ISO_RE.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return null;
  const hasTime = m[4] !== undefined;
  const ms = Date.parse(hasTime && !m[8] ? `${s}Z` : s);
  if (Number.isNaN(ms)) return null;
  const precisionMs = !hasTime ? DAY : m[6] === undefined ? 60_000 : m[7] === undefined ? 1000 : Math.max(1, 10 ** (3 - m[7].length));
  return { at: new Date(ms), precisionMs };
}
