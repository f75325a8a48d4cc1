import { createHash, randomUUID } from 'node:crypto';
import type { Mongo } from '../platform/mongo';
import { isDuplicateKeyError } from '../platform/mongo';
import { parseId } from '../platform/ids';
import type { EventRecord, ParkedDeliveryRecord, WebhookEndpointRecord } from '../platform/records';

// Webhook endpoints (a tenant's URL), their health, their parked deliveries and their in-flight send slots.
// FerretDB loses concurrent updates of one document, so nothing here counts by updating: health is read
// from delivery_attempts, a disable names its event by the endpoint's disable count (a racing second disable
// writes the same event id and is dropped by the unique _id), and send slots are documents whose unique _id
// is the lock.

export const WEBHOOK_ENDPOINT_DISABLED = 'webhook_endpoint.disabled';

/** The span in which an endpoint failing for its disable period must have failed at least once, all through it. */
const FAILING_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A receiver's one spelling: the URL as WHATWG parses it (scheme and host lower-case, the default port dropped, dot
 * segments resolved, an empty path `/`), without the fragment, which never reaches the receiver. What endpoints are
 * told apart by, and matched by; a URL already in this form is unchanged, so its endpoint keeps its id. One that does
 * not parse is kept as given (the API refuses it before).
 */
export function canonicalWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}

/** `whe_<hex>`: one id per tenant and receiver (however its URL is written), the same in every process. */
export function endpointId(tenantId: string, url: string): string {
  return `whe_${createHash('sha256').update(`${tenantId}\n${canonicalWebhookUrl(url)}`).digest('hex').slice(0, 32)}`;
}

export interface EndpointHealth {
  lastSuccessAt: Date | null;
  /** The first failed attempt after the last success (or the last re-enable); null when the last attempt delivered. */
  failingSince: Date | null;
}

export interface EndpointView extends EndpointHealth {
  record: WebhookEndpointRecord;
  parked: number;
}

export function webhookEndpointData(mongo: Mongo) {
  const c = mongo.c.webhookEndpoints;
  const attempts = mongo.c.deliveryAttempts;

  /** Made once per tenant and URL; a racing twin's insert fails on the unique _id and the stored one is read. */
  const ensure = async (tenantId: string, url: string, now = new Date()): Promise<WebhookEndpointRecord> => {
    const _id = endpointId(tenantId, url);
    const found = await c.findOne({ _id });
    if (found) return found;
    const record: WebhookEndpointRecord = {
      _id,
      tenant_id: tenantId,
      url: canonicalWebhookUrl(url),
      state: 'enabled',
      created_at: now,
      enabled_at: now,
      enabled_by: null,
      disabled_at: null,
      disable_count: 0,
      disabled_event: null,
    };
    try {
      await c.insertOne(record);
      return record;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return (await c.findOne({ _id }))!;
    }
  };

  const health = async (e: WebhookEndpointRecord): Promise<EndpointHealth> => {
    const scope = { tenant_id: e.tenant_id, endpoint_url: e.url };
    const success = await attempts.find({ ...scope, outcome: 'delivered' }).sort({ attempted_at: -1 }).limit(1).next();
    const lastSuccessAt = success?.attempted_at ?? null;
    const from = lastSuccessAt && lastSuccessAt > e.enabled_at ? lastSuccessAt : e.enabled_at;
    const failure = await attempts
      .find({ ...scope, outcome: { $ne: 'delivered' }, not_the_endpoints: { $ne: true }, attempted_at: { $gte: from } })
      .sort({ attempted_at: 1 })
      .limit(1)
      .next();
    return { lastSuccessAt, failingSince: failure?.attempted_at ?? null };
  };

  /**
   * Whether failed attempts were made all through the period, one at least in each day of it: an endpoint that
   * failed once, then had nothing to receive for days, then failed once more has not been failing for the
   * period (Stripe and Svix disable after continuous failure), and a low-volume merchant's endpoint stays on.
   */
  const failingThroughout = async (e: WebhookEndpointRecord, now: Date, periodMs: number): Promise<boolean> => {
    const scope = { tenant_id: e.tenant_id, endpoint_url: e.url, outcome: { $ne: 'delivered' as const }, not_the_endpoints: { $ne: true as const } };
    for (let end = now.getTime(); end > now.getTime() - periodMs; end -= FAILING_DAY_MS) {
      const start = Math.max(end - FAILING_DAY_MS, now.getTime() - periodMs);
      if (!(await attempts.findOne({ ...scope, attempted_at: { $gte: new Date(start), $lte: new Date(end) } }, { projection: { _id: 1 } }))) return false;
    }
    return true;
  };

  return {
    ensure,
    health,
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byUrl: (tenantId: string, url: string) => c.findOne({ _id: endpointId(tenantId, url), tenant_id: tenantId }),
    /** A tenant's endpoints with their health, oldest first (at most 500). */
    async list(tenantId: string): Promise<EndpointView[]> {
      const records = await c.find({ tenant_id: tenantId }).sort({ created_at: 1, _id: 1 }).limit(500).toArray();
      return Promise.all(
        records.map(async (record) => ({
          record,
          ...(await health(record)),
          parked: await mongo.c.parkedDeliveries.countDocuments({ endpoint_id: record._id, replayed_by: null }),
        })),
      );
    },

    /**
     * Disables the endpoint when every attempt since `failingSince` failed for `disableAfterMs` by `now`.
     * Stores one `webhook_endpoint.disabled` event per disable (tenant-scoped, delivered nowhere: the
     * endpoint it is about no longer receives). Answers whether the endpoint is disabled after the call.
     * `attemptedAt`: the attempt being judged, from which an endpoint not made yet (its attempt failed before
     * the send made it) is enabled, so that attempt counts.
     */
    async disableIfFailing(tenantId: string, url: string, disableAfterMs: number, now = new Date(), attemptedAt = now): Promise<boolean> {
      const e = await ensure(tenantId, url, attemptedAt);
      if (e.state === 'disabled') return true;
      const h = await health(e);
      if (!h.failingSince || now.getTime() - h.failingSince.getTime() < disableAfterMs) return false;
      if (!(await failingThroughout(e, now, disableAfterMs))) return false;
      const count = e.disable_count + 1;
      const region = parseId(tenantId)?.region ?? 'eu';
      const eventId = `evt_${region}_${createHash('sha256').update(`${e._id}:disable:${count}`).digest('hex').slice(0, 32)}`;
      const data = {
        object: 'webhook_endpoint',
        id: e._id,
        url: e.url,
        status: 'disabled',
        disabled_at: now.toISOString(),
        failing_since: h.failingSince.toISOString(),
        last_success_at: h.lastSuccessAt?.toISOString() ?? null,
      };
      const event: EventRecord = {
        _id: eventId,
        tenant_id: tenantId,
        type: WEBHOOK_ENDPOINT_DISABLED,
        created_at: now,
        data,
        object_id: e._id,
        body: JSON.stringify({ id: eventId, type: WEBHOOK_ENDPOINT_DISABLED, created_at: now.toISOString(), data }),
        format: 'envelope',
        source: { kind: 'webhook_endpoint', id: e._id },
        endpoints: [],
      };
      try {
        await mongo.c.events.insertOne(event);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      await c.updateOne(
        { _id: e._id, disable_count: e.disable_count },
        { $set: { state: 'disabled', disabled_at: now, disable_count: count, disabled_event: eventId } },
      );
      return true;
    },

    /** Turns a disabled endpoint back on; its health starts again from now. Null when it was not disabled. */
    async enable(e: WebhookEndpointRecord, by: { operator: string; reason: string }, now = new Date()): Promise<WebhookEndpointRecord | null> {
      if (e.state !== 'disabled') return null;
      await c.updateOne({ _id: e._id, disable_count: e.disable_count }, { $set: { state: 'enabled', enabled_at: now, enabled_by: by } });
      return (await c.findOne({ _id: e._id }))!;
    },

    async park(p: Omit<ParkedDeliveryRecord, 'replayed_by'>): Promise<void> {
      try {
        await mongo.c.parkedDeliveries.insertOne({ ...p, replayed_by: null });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    /** Takes back a park no replay has claimed yet; answers whether it did. */
    unpark: async (deliveryId: string): Promise<boolean> => (await mongo.c.parkedDeliveries.deleteOne({ _id: deliveryId, replayed_by: null })).deletedCount === 1,
    /** Parked deliveries of an endpoint not yet replayed, oldest first (at most `limit`). */
    parked: (id: string, limit: number) =>
      mongo.c.parkedDeliveries.find({ endpoint_id: id, replayed_by: null }).sort({ parked_at: 1, _id: 1 }).limit(limit).toArray(),
    markReplayed: (deliveryId: string, by: string) => mongo.c.parkedDeliveries.updateOne({ _id: deliveryId }, { $set: { replayed_by: by } }),
    /** An endpoint by its id, whatever its tenant (operators). */
    byId: (id: string) => c.findOne({ _id: id }),
    /** Events of one tenant by id. */
    eventsByIds: (tenantId: string, ids: string[]) => mongo.c.events.find({ _id: { $in: ids }, tenant_id: tenantId }).toArray(),
    /**
     * Whether a delivery of `eventId` with this workflow id left a trace here: an attempt it made, or its park.
     * What the operator's redeliver asks of an id Temporal no longer knows (its retention passed), so an id that
     * never named a delivery is not taken for one that ended.
     */
    deliveryRecorded: async (eventId: string, deliveryId: string): Promise<boolean> =>
      (await mongo.c.deliveryAttempts.findOne({ event_id: eventId, delivery_id: deliveryId }, { projection: { _id: 1 } })) !== null ||
      (await mongo.c.parkedDeliveries.findOne({ _id: deliveryId }, { projection: { _id: 1 } })) !== null,
    /** An event whatever its tenant (operators name a delivery, not a tenant). */
    eventById: (id: string) => mongo.c.events.findOne({ _id: id }),
    /**
     * A tenant's events sent to any of `urls` (the canonical URL, and the spelling an event stored before URLs were
     * canonical may name) created at or after `since`, oldest first, ties by id (at most `limit`); with `after`, those at
     * `since` only after that id.
     */
    eventsSince: (tenantId: string, urls: string[], since: Date, limit: number, after?: string) =>
      mongo.c.events
        .find({
          tenant_id: tenantId,
          'endpoints.url': { $in: [...new Set(urls)] },
          ...(after ? { $or: [{ created_at: { $gt: since } }, { created_at: since, _id: { $gt: after } }] } : { created_at: { $gte: since } }),
        })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray(),
  };
}

/**
 * At most `cap` attempts in flight to one endpoint, over every worker: slot n is the document
 * `<endpoint>:<n>`, taken by inserting it (the unique _id decides between racers) and freed by deleting it.
 * A slot whose holder died is taken over once `expires_at` passed. The database is the only shared thing, so
 * this holds for any number of worker processes.
 */
export function sendSlots(mongo: Mongo) {
  const c = mongo.c.webhookSendSlots;
  return {
    async acquire(endpoint: string, cap: number, ttlMs: number, now = new Date()): Promise<string | null> {
      const holder = randomUUID();
      // One read says which slots are held and which were left by a dead holder; a put-off costs just that.
      const held = await c.find({ endpoint_id: endpoint }).toArray();
      const taken = new Set(held.filter((h) => h.expires_at >= now).map((h) => h._id));
      const stale = new Set(held.filter((h) => h.expires_at < now).map((h) => h._id));
      // Free slots first, from a random one so racers spread out instead of all fighting for slot 0.
      const start = Math.floor(Math.random() * cap);
      const order = Array.from({ length: cap }, (_, i) => `${endpoint}:${(start + i) % cap}`).filter((id) => !taken.has(id));
      for (const _id of order) {
        // A slot whose holder is long gone (a worker killed mid-attempt) is taken over.
        if (stale.has(_id) && (await c.deleteOne({ _id, expires_at: { $lt: now } })).deletedCount !== 1) continue;
        try {
          await c.insertOne({ _id, endpoint_id: endpoint, holder, expires_at: new Date(now.getTime() + ttlMs) });
          return `${_id}#${holder}`;
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
        }
      }
      return null;
    },
    async release(lease: string): Promise<void> {
      const [id, holder] = lease.split('#');
      await c.deleteOne({ _id: id!, holder: holder! });
    },
    inFlight: (endpoint: string) => c.countDocuments({ endpoint_id: endpoint }),
  };
}
