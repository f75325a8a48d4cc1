import { z } from 'zod';
import { parseIsoInstant } from '../../domain/instants';
import type { CreatedFilter } from '../../data/list';

export type { Page, PageQuery, CreatedFilter } from '../../data/list';

// Cursor lists, the way Stripe does them: newest first (created_at desc, then _id desc so equal timestamps
// still have one order), `limit` 1..100, `starting_after` / `ending_before` an object id of the same list,
// `{ data, has_more }` and no page numbers. Plain find/sort/limit with $and/$or: FerretDB supports these,
// and the (tenant_id, created_at, _id) index serves them.

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/**
 * A `created` value: Unix seconds (`1767225600`) or ISO 8601 (`2026-01-01`, `2026-01-01T10:00:00Z`).
 * Returns the instant and the precision it was written with, so an exact `created` matches the whole
 * second (or minute, or day) that was named rather than one millisecond of it.
 */
export function parseInstant(raw: string): { at: Date; precisionMs: number } | null {
  const s = raw.trim();
  if (/^\d{1,11}$/.test(s)) return { at: new Date(Number(s) * 1000), precisionMs: 1000 };
  return parseIsoInstant(s);
}

const instant = z.string().transform((v, ctx) => {
  const p = parseInstant(v);
  if (!p) {
    ctx.addIssue({ code: 'custom', message: 'must be a Unix timestamp in seconds or an ISO 8601 date-time' });
    return z.NEVER;
  }
  return p;
});

/**
 * `created=<t>` (exact), or the bracket form `created[gte]=<t>&created[lt]=<t>` (api/query.ts makes it an
 * object; a bare value next to brackets arrives as `eq`). Parsed to a condition on `created_at`.
 */
export const createdSchema = z
  .union([
    instant,
    z.object({ eq: instant.optional(), gt: instant.optional(), gte: instant.optional(), lt: instant.optional(), lte: instant.optional() }).strict(),
  ])
  .transform((v, ctx): CreatedFilter => {
    if ('at' in v) return exact(v);
    const { eq, ...range } = v;
    if (eq) {
      if (Object.keys(range).length > 0) {
        ctx.addIssue({ code: 'custom', message: 'give either an exact value or a range, not both' });
        return z.NEVER;
      }
      return exact(eq);
    }
    if (Object.keys(range).length === 0) {
      ctx.addIssue({ code: 'custom', message: 'give one of gt, gte, lt, lte' });
      return z.NEVER;
    }
    // Each bound names a whole second (or minute, or day), as an exact value does: `lte T` takes all of T and
    // `gt T` none of it, so `gt` of the last value seen pages on without repeats (records keep milliseconds).
    const from = [range.gte && range.gte.at, range.gt && end(range.gt)].filter((d): d is Date => !!d);
    const until = [range.lt && range.lt.at, range.lte && end(range.lte)].filter((d): d is Date => !!d);
    const f: CreatedFilter = {};
    if (from.length > 0) f.$gte = new Date(Math.max(...from.map((d) => d.getTime())));
    if (until.length > 0) f.$lt = new Date(Math.min(...until.map((d) => d.getTime())));
    return f;
  });

/** The first instant after the second (or minute, or day) a value names. */
function end(p: { at: Date; precisionMs: number }): Date {
  return new Date(p.at.getTime() + p.precisionMs);
}

function exact(p: { at: Date; precisionMs: number }): CreatedFilter {
  return { $gte: p.at, $lt: end(p) };
}

const cursorId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[a-z]{2,8}_[0-9A-Za-z]{8,64}$`), `must be a ${prefix}_... id`);

/**
 * The query schema of a list: the common `limit`, `starting_after`, `ending_before` (ids with `prefix`) and
 * `created`, plus the list's own filters. Unknown parameters are refused (400 parameter_unknown).
 */
export function listQuerySchema<S extends z.ZodRawShape>(prefix: string, filters: S) {
  return z
    .object({
      limit: z.coerce.number().int('must be an integer').min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
      starting_after: cursorId(prefix).optional(),
      ending_before: cursorId(prefix).optional(),
      created: createdSchema
        .optional()
        .meta({
          description:
            'Unix seconds or ISO 8601, exact (`created=2026-03-02`) or a range (`created[gte]=`, `gt`, `lt`, `lte`). Each value names the whole second, minute or day it is written to: `created[lte]=<t>` takes all of second t, `created[gt]=<t>` none of it',
        }),
      ...filters,
    })
    .strict()
    .superRefine((q, ctx) => {
      const { starting_after, ending_before } = q as { starting_after?: string; ending_before?: string };
      if (starting_after !== undefined && ending_before !== undefined)
        ctx.addIssue({ code: 'custom', path: ['ending_before'], message: 'give only one of starting_after and ending_before' });
    });
}
