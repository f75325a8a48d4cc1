import { z } from 'zod';
import { listQuerySchema, parseInstant } from '../../../api/http/pagination';
import { parseQuery } from '../../../api/http/query';

// The list query shared by events, payment intents, refunds and customers, as the router parses it
// (api/query.ts turns created[gte]=... into an object first). The cursor walk itself runs against MongoDB
// in the integration layer.

const schema = listQuerySchema('evt', { type: z.string().optional() });
const parse = (qs: string) => schema.safeParse(parseQuery(new URLSearchParams(qs)));
const ok = (qs: string) => {
  const r = parse(qs);
  if (!r.success) throw new Error(`${qs}: ${r.error.issues[0]!.message}`);
  return r.data;
};
const issue = (qs: string) => {
  const r = parse(qs);
  if (r.success) throw new Error(`${qs} was accepted`);
  return { path: r.error.issues[0]!.path.join('.'), message: r.error.issues[0]!.message, code: r.error.issues[0]!.code };
};

describe('list query', () => {
  it('defaults limit to 25 and coerces it', () => {
    expect(ok('')).toEqual({ limit: 25 });
    expect(ok('limit=1').limit).toBe(1);
    expect(ok('limit=100').limit).toBe(100);
  });

  it.each(['0', '101', '2.5', 'ten', '-1'])('refuses limit=%s', (v) => {
    expect(issue(`limit=${v}`).path).toBe('limit');
  });

  it('takes cursors of the list type only', () => {
    expect(ok('starting_after=evt_eu_0123456789abcdef').starting_after).toBe('evt_eu_0123456789abcdef');
    expect(issue('starting_after=pi_eu_0123456789abcdef').path).toBe('starting_after');
    expect(issue('ending_before=evt_eu_x').path).toBe('ending_before');
  });

  it('refuses both cursors at once', () => {
    expect(issue('starting_after=evt_eu_0123456789abcdef&ending_before=evt_eu_0123456789abcdeg')).toMatchObject({ path: 'ending_before' });
  });

  it('refuses unknown parameters', () => {
    expect(issue('page=2').code).toBe('unrecognized_keys');
  });

  it('keeps the list filters', () => {
    expect(ok('type=payment.success')).toEqual({ limit: 25, type: 'payment.success' });
  });
});

describe('created', () => {
  const t = (iso: string) => new Date(iso);

  it('matches the whole second named by a Unix timestamp', () => {
    expect(ok('created=1767225600').created).toEqual({ $gte: t('2026-01-01T00:00:00Z'), $lt: t('2026-01-01T00:00:01Z') });
  });

  it('matches the whole day, minute or second an ISO value names', () => {
    expect(ok('created=2026-01-01').created).toEqual({ $gte: t('2026-01-01T00:00:00Z'), $lt: t('2026-01-02T00:00:00Z') });
    expect(ok('created=2026-01-01T10:30Z').created).toEqual({ $gte: t('2026-01-01T10:30:00Z'), $lt: t('2026-01-01T10:31:00Z') });
    expect(ok('created=2026-01-01T10:30:15.250%2B01:00').created).toEqual({ $gte: t('2026-01-01T09:30:15.250Z'), $lt: t('2026-01-01T09:30:15.251Z') });
  });

  it('reads a date-time without a zone as UTC', () => {
    expect(ok('created=2026-01-01T10:30:00').created).toEqual({ $gte: t('2026-01-01T10:30:00Z'), $lt: t('2026-01-01T10:30:01Z') });
  });

  it('takes a range in the bracket form, mixing Unix and ISO values', () => {
    expect(ok('created[gte]=1767225600&created[lt]=2026-02-01T00:00:00Z').created).toEqual({ $gte: t('2026-01-01T00:00:00Z'), $lt: t('2026-02-01T00:00:00Z') });
  });

  it('reads each bound of a range as the whole second, minute or day it names, as an exact value', () => {
    // Records keep milliseconds: `lte T` takes all of second T, and `gt T` none of it.
    expect(ok('created[gt]=1767225600&created[lte]=1767225700').created).toEqual({ $gte: t('2026-01-01T00:00:01Z'), $lt: t('2026-01-01T00:01:41Z') });
    expect(ok('created[lte]=2026-03-02').created).toEqual({ $lt: t('2026-03-03T00:00:00Z') });
    expect(ok('created[gt]=2026-03-02T10:15Z').created).toEqual({ $gte: t('2026-03-02T10:16:00Z') });
    // Two bounds on one side: the narrower one holds.
    expect(ok('created[gte]=1767225600&created[gt]=1767225600').created).toEqual({ $gte: t('2026-01-01T00:00:01Z') });
    expect(ok('created[lt]=1767225600&created[lte]=1767225700').created).toEqual({ $lt: t('2026-01-01T00:00:00Z') });
  });

  it('refuses nonsense, unknown operators and an exact value mixed with a range', () => {
    expect(issue('created=yesterday').path).toMatch(/^created/);
    expect(issue('created[after]=1767225600').path).toMatch(/^created/);
    expect(issue('created=1767225600&created[gte]=1767225600').path).toMatch(/^created/);
    expect(issue('created=2026-13-01').path).toMatch(/^created/);
  });

  it('parseInstant reports the precision it was written with', () => {
    expect(parseInstant('1767225600')).toEqual({ at: t('2026-01-01T00:00:00Z'), precisionMs: 1000 });
    expect(parseInstant('2026-01-01T00:00:00.5Z')?.precisionMs).toBe(100);
    expect(parseInstant('2026-02-30')).toBeNull();
  });
});
