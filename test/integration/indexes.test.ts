import { connectMongo, INDEXES } from '../../platform/mongo';
import { getStack } from './harness';

// What platform/mongo.ts declares is what the server holds once the API and worker have started (they run
// ensureIndexes): every index, with its key order and uniqueness. test/unit/api/list-indexes.test.ts checks
// that the declared ones serve every list.

test('the MongoDB-protocol server holds every declared index, keys in order, unique where declared', async () => {
  const mongo = await connectMongo(getStack().mongoUri);
  try {
    const held = new Set<string>();
    for (const collection of new Set(INDEXES.map((d) => d.collection))) {
      for (const index of await mongo.c[collection].listIndexes().toArray())
        held.add(`${collection} ${JSON.stringify(index.key)}${index.unique ? ' unique' : ''}`);
    }

    const declared = INDEXES.map((d) => `${d.collection} ${JSON.stringify(d.key)}${d.unique ? ' unique' : ''}`);
    expect(declared.filter((d) => !held.has(d))).toEqual([]);
  } finally {
    await mongo.close();
  }
});
