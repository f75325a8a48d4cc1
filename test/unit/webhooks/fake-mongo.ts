import type { Mongo } from '../../../platform/mongo';

// An in-memory stand-in for the few collection calls the webhook activities and their data modules make:
// findOne and updateOne by equality on top-level fields, $set, and insertOne with a unique _id. The real
// database is exercised by the integration layer.

type Doc = Record<string, unknown> & { _id: string };

export class FakeCollection {
  readonly docs = new Map<string, Doc>();

  constructor(initial: readonly object[] = []) {
    for (const d of initial) this.docs.set((d as Doc)._id, structuredClone(d as Doc));
  }

  private find(q: Record<string, unknown>): Doc | undefined {
    return [...this.docs.values()].find((d) => Object.entries(q).every(([k, v]) => d[k] === v));
  }

  async findOne(q: Record<string, unknown>) {
    const found = this.find(q);
    return found ? structuredClone(found) : null;
  }

  async insertOne(doc: Doc) {
    if (this.docs.has(doc._id)) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 });
    this.docs.set(doc._id, structuredClone(doc));
    return { acknowledged: true, insertedId: doc._id };
  }

  async updateOne(q: Record<string, unknown>, update: { $set: Record<string, unknown> }) {
    const found = this.find(q);
    if (found) Object.assign(found, structuredClone(update.$set));
    return { acknowledged: true, matchedCount: found ? 1 : 0, modifiedCount: found ? 1 : 0 };
  }
}

/** A Mongo whose collections are FakeCollections: those given, and an empty one for any other name. */
export function fakeMongo(collections: Record<string, FakeCollection> = {}): Mongo {
  const c = new Proxy(collections, { get: (target, name: string) => (target[name] ??= new FakeCollection()) });
  return { c } as unknown as Mongo;
}
