import { isDuplicateKeyError, type Mongo } from '../platform/mongo';

// Integer sequences (the older interface's numeric ids) as a hi/lo allocator. The local MongoDB-protocol
// server loses concurrent `$inc`s of one document, so there is no counter: a process reserves a block of
// numbers by INSERTING `${name}:${block}`, and the unique `_id` is the only guard (FerretDB honours it).
// Numbers start at 1, never repeat across processes and increase within one. Like a database sequence with
// a cache, the unused rest of a process's block is lost when it stops: gaps after a restart are accepted.
//
// Every process must use the same block size for a name (block 3 of 100 is 201..300, of 1 it is 3); a read
// that finds blocks of another size throws.
//
// Finding the highest block (sort desc, limit 1) is served by the {name: 1, block: -1} index on MongoDB, but
// FerretDB 1.24 on SQLite pushes neither that filter nor the sort down: it reads the whole collection
// (measured: ~0.5 s at 20,000 blocks), whereas an insert, even a refused one, checks the unique `_id` index
// (~1-2 ms). So a process reads once, then probes the next block by inserting, and reads again only after
// PROBES_BEFORE_READ refusals in a row (another process is far ahead).

export const DEFAULT_BLOCK_SIZE = 100;
const PROBES_BEFORE_READ = 4;

export interface Sequences {
  /** The next number of the sequence `name`: unique across processes, increasing within this one. */
  next(name: string): Promise<number>;
}

/** The numbers of block `block` (1, 2, ...) of `size` numbers: block 1 starts at 1. */
export function blockRange(block: number, size: number): { first: number; last: number } {
  return { first: (block - 1) * size + 1, last: block * size };
}

export function blockId(name: string, block: number): string {
  return `${name}:${block}`;
}

interface SequenceState {
  /** The next number to hand out and the last of the current block; next > last when none is left. */
  next: number;
  last: number;
  /** This process's current block (0 before the first). */
  block: number;
  /** The highest block known to be taken, by anyone; undefined until the first read. */
  known: number | undefined;
  /** The reservation under way: every caller that finds the block empty waits on this one. */
  reserving: Promise<void> | undefined;
}

export function createSequences(mongo: Mongo, opts: { blockSize?: number } = {}): Sequences {
  const size = opts.blockSize ?? DEFAULT_BLOCK_SIZE;
  if (!Number.isSafeInteger(size) || size < 1) throw new Error(`blockSize must be a positive integer, not ${size}`);
  const c = mongo.c.sequenceBlocks;
  const states = new Map<string, SequenceState>();

  const highestBlock = async (name: string): Promise<number> => {
    const [top] = await c.find({ name }, { projection: { block: 1, size: 1 } }).sort({ block: -1 }).limit(1).toArray();
    if (top && top.size !== size) throw new Error(`sequence '${name}' is kept in blocks of ${top.size}, not ${size}`);
    return top?.block ?? 0;
  };

  const reserve = async (name: string, s: SequenceState): Promise<void> => {
    let candidate = 0;
    let refusals = PROBES_BEFORE_READ; // the first attempt reads unless this process has read before
    if (s.known !== undefined) {
      candidate = Math.max(s.known, s.block) + 1;
      refusals = 0;
    }
    for (;;) {
      if (refusals >= PROBES_BEFORE_READ) {
        s.known = Math.max(s.known ?? 0, await highestBlock(name));
        // Never below our own block, so numbers keep increasing within the process.
        candidate = Math.max(s.known, s.block) + 1;
        refusals = 0;
      }
      try {
        await c.insertOne({ _id: blockId(name, candidate), name, block: candidate, size, created_at: new Date() });
        break;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // Taken, so every block up to it is too (each insert is of a block whose predecessor exists).
        s.known = Math.max(s.known ?? 0, candidate);
        candidate += 1;
        refusals += 1;
      }
    }
    const { first, last } = blockRange(candidate, size);
    s.block = candidate;
    s.known = Math.max(s.known ?? 0, candidate);
    s.next = first;
    s.last = last;
  };

  return {
    async next(name) {
      if (!name) throw new Error('a sequence needs a name');
      let s = states.get(name);
      if (!s) {
        s = { next: 1, last: 0, block: 0, known: undefined, reserving: undefined };
        states.set(name, s);
      }
      for (;;) {
        // Check and increment with no await in between: two callers never get the same number.
        if (s.next <= s.last) return s.next++;
        const state = s;
        state.reserving ??= reserve(name, state).finally(() => {
          state.reserving = undefined;
        });
        await state.reserving;
      }
    },
  };
}

// One allocator per connection and block size, that is per process, so all its callers share its blocks.
const shared = new WeakMap<Mongo, Map<number, Sequences>>();

/** This process's allocator over `mongo` with blocks of `blockSize` (one per connection and size). */
export function sequencesFor(mongo: Mongo, blockSize = DEFAULT_BLOCK_SIZE): Sequences {
  let bySize = shared.get(mongo);
  if (!bySize) {
    bySize = new Map();
    shared.set(mongo, bySize);
  }
  let sequences = bySize.get(blockSize);
  if (!sequences) {
    sequences = createSequences(mongo, { blockSize });
    bySize.set(blockSize, sequences);
  }
  return sequences;
}
