import { CHANGE_KEYS_KEPT, SETTLED_KEPT, StockState } from '../../../workflows/product-stock/state';

// A product's units as plain code, without Temporal: what a hold, a release, a sale and a merchant's count do
// to them, and what a run carries across continue-as-new.

/** The workflow's clock when a reserve lands. */
const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('reserve: all or nothing', () => {
  test('a hold that fits is taken in full; available drops by it, on hand does not', () => {
    const s = new StockState(5);
    expect(s.reserve({ holder: 'chk_a', quantity: 3 }, NOW)).toEqual({ ok: true, quantity: 3, available: 2 });
    expect(s.level()).toEqual({ onHand: 5, available: 2, held: 3 });
  });

  test('a hold larger than what is available takes nothing and says what is available', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 3 }, NOW);
    expect(s.reserve({ holder: 'chk_b', quantity: 3 }, NOW)).toEqual({ ok: false, available: 2 });
    expect(s.holds.has('chk_b')).toBe(false);
    expect(s.level()).toEqual({ onHand: 5, available: 2, held: 3 });
  });

  test('exactly what is available is held; the next unit is refused', () => {
    const s = new StockState(2);
    expect(s.reserve({ holder: 'chk_a', quantity: 2 }, NOW)).toEqual({ ok: true, quantity: 2, available: 0 });
    expect(s.reserve({ holder: 'chk_b', quantity: 1 }, NOW)).toEqual({ ok: false, available: 0 });
  });

  test('of many holders asking for the last unit, only the first gets it', () => {
    const s = new StockState(1);
    const answers = Array.from({ length: 10 }, (_, i) => s.reserve({ holder: `chk_${i}`, quantity: 1 }, NOW));
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers[0]).toEqual({ ok: true, quantity: 1, available: 0 });
    expect(s.level()).toEqual({ onHand: 1, available: 0, held: 1 });
  });

  test.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('a quantity of %p is refused and holds nothing', (quantity) => {
    const s = new StockState(10);
    expect(s.reserve({ holder: 'chk_a', quantity }, NOW)).toEqual({ ok: false, available: 10 });
    expect(s.holds.size).toBe(0);
  });

  test('nothing on hand: every hold is refused', () => {
    const s = new StockState(0);
    expect(s.reserve({ holder: 'chk_a', quantity: 1 }, NOW)).toEqual({ ok: false, available: 0 });
  });
});

describe('reserve: the same holder again', () => {
  test('answers its hold, whatever quantity it asks for now, and holds nothing more', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    expect(s.reserve({ holder: 'chk_a', quantity: 2 }, NOW)).toEqual({ ok: true, quantity: 2, available: 3 });
    expect(s.reserve({ holder: 'chk_a', quantity: 4 }, NOW)).toEqual({ ok: true, quantity: 2, available: 3 });
    expect(s.reserve({ holder: 'chk_a', quantity: 99 }, NOW)).toEqual({ ok: true, quantity: 2, available: 3 });
    expect(s.level()).toEqual({ onHand: 5, available: 3, held: 2 });
  });

  test('a holder that took the last unit is still answered ok when nothing is available', () => {
    const s = new StockState(1);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    expect(s.reserve({ holder: 'chk_a', quantity: 1 }, NOW)).toEqual({ ok: true, quantity: 1, available: 0 });
  });

  test('a refused holder is not remembered: it may hold once units are free', () => {
    const s = new StockState(1);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    expect(s.reserve({ holder: 'chk_b', quantity: 1 }, NOW).ok).toBe(false);
    s.release('chk_a');
    expect(s.reserve({ holder: 'chk_b', quantity: 1 }, NOW)).toEqual({ ok: true, quantity: 1, available: 0 });
  });

  test('holder ids are data: a holder named like an Object property is a holder like any other', () => {
    const s = new StockState(3);
    expect(s.reserve({ holder: '__proto__', quantity: 1 }, NOW).ok).toBe(true);
    expect(s.reserve({ holder: 'constructor', quantity: 1 }, NOW).ok).toBe(true);
    expect(s.level()).toEqual({ onHand: 3, available: 1, held: 2 });
    expect(s.release('__proto__')).toBe(true);
    expect(s.level().held).toBe(1);
  });
});

describe('release', () => {
  test('frees the holder’s units; on hand is unchanged', () => {
    const s = new StockState(4);
    s.reserve({ holder: 'chk_a', quantity: 3 }, NOW);
    expect(s.release('chk_a')).toBe(true);
    expect(s.level()).toEqual({ onHand: 4, available: 4, held: 0 });
  });

  test('is idempotent: a second release, or one of an unknown holder, changes nothing', () => {
    const s = new StockState(4);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 2 }, NOW);
    expect(s.release('chk_a')).toBe(true);
    expect(s.release('chk_a')).toBe(false);
    expect(s.release('chk_nobody')).toBe(false);
    expect(s.level()).toEqual({ onHand: 4, available: 2, held: 2 });
  });

  test('a released unit can be held by another holder', () => {
    const s = new StockState(1);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.release('chk_a');
    expect(s.reserve({ holder: 'chk_b', quantity: 1 }, NOW)).toEqual({ ok: true, quantity: 1, available: 0 });
  });
});

describe('commit', () => {
  test('sells the held units: on hand drops by them once, the hold is gone, available unchanged', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    expect(s.commit('chk_a')).toBe(true);
    expect(s.level()).toEqual({ onHand: 3, available: 3, held: 0 });
  });

  test('is idempotent: a second commit lowers nothing', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.commit('chk_a');
    expect(s.commit('chk_a')).toBe(false);
    expect(s.level()).toEqual({ onHand: 3, available: 3, held: 0 });
  });

  test('a commit of an unknown or released holder sells nothing', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.release('chk_a');
    expect(s.commit('chk_a')).toBe(false);
    expect(s.commit('chk_nobody')).toBe(false);
    expect(s.level()).toEqual({ onHand: 5, available: 5, held: 0 });
  });

  test('a release after the commit takes nothing back', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.commit('chk_a');
    expect(s.release('chk_a')).toBe(false);
    expect(s.level()).toEqual({ onHand: 3, available: 3, held: 0 });
  });

  test('the last unit sold: 0 on hand, 0 available', () => {
    const s = new StockState(1);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.commit('chk_a');
    expect(s.level()).toEqual({ onHand: 0, available: 0, held: 0 });
  });
});

describe('settled holders: a late reserve holds nothing', () => {
  test('a holder released cannot hold again (its late reserve would hold units nobody releases)', () => {
    const s = new StockState(2);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.release('chk_a');
    expect(s.reserve({ holder: 'chk_a', quantity: 1 }, NOW)).toEqual({ ok: false, available: 2 });
    expect(s.level()).toEqual({ onHand: 2, available: 2, held: 0 });
  });

  test('a holder sold cannot hold again', () => {
    const s = new StockState(2);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.commit('chk_a');
    expect(s.reserve({ holder: 'chk_a', quantity: 1 }, NOW)).toEqual({ ok: false, available: 1 });
    expect(s.level()).toEqual({ onHand: 1, available: 1, held: 0 });
  });

  test('a release that arrives before the reserve it answers (the API gave up first) refuses that reserve', () => {
    const s = new StockState(2);
    expect(s.release('chk_a')).toBe(false); // nothing held yet: nothing changed
    expect(s.reserve({ holder: 'chk_a', quantity: 1 }, NOW)).toEqual({ ok: false, available: 2 });
    expect(s.commit('chk_b')).toBe(false);
    expect(s.reserve({ holder: 'chk_b', quantity: 1 }, NOW)).toEqual({ ok: false, available: 2 });
  });

  test(`only the last ${SETTLED_KEPT} settled holders are remembered, oldest forgotten first; a repeat settles anew`, () => {
    const s = new StockState(1);
    for (let i = 0; i < SETTLED_KEPT; i++) s.release(`chk_${i}`);
    expect(s.settled.size).toBe(SETTLED_KEPT);
    s.release('chk_0'); // settled again: now the newest
    s.release('chk_new');
    expect(s.settled.size).toBe(SETTLED_KEPT);
    expect(s.settled.has('chk_0')).toBe(true);
    expect(s.settled.has('chk_1')).toBe(false); // the oldest went
    expect(s.reserve({ holder: 'chk_1', quantity: 1 }, NOW).ok).toBe(true);
    expect(s.reserve({ holder: 'chk_0', quantity: 1 }, NOW).ok).toBe(false);
  });
});

describe('the merchant sets the stock', () => {
  test('raising it makes more available; holds still count against it', () => {
    const s = new StockState(2);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.set(10);
    expect(s.level()).toEqual({ onHand: 10, available: 8, held: 2 });
  });

  test('below what is held: available is 0, never negative, and holds stand', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 3 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 2 }, NOW);
    s.set(1);
    expect(s.level()).toEqual({ onHand: 1, available: 0, held: 5 });
    expect(s.reserve({ holder: 'chk_c', quantity: 1 }, NOW)).toEqual({ ok: false, available: 0 });
    expect(s.reserve({ holder: 'chk_a', quantity: 3 }, NOW)).toEqual({ ok: true, quantity: 3, available: 0 }); // its hold stands
  });

  test('below what is held: a release frees only what the count allows', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 3 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 2 }, NOW);
    s.set(4);
    expect(s.level().available).toBe(0);
    s.release('chk_b');
    expect(s.level()).toEqual({ onHand: 4, available: 1, held: 3 });
  });

  test('below what is held: units sold past on hand are counted, on hand goes below 0 and a delivery makes up for them first', () => {
    const s = new StockState(8);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.set(0);
    expect(s.sellsPastOnHand('chk_a')).toBe(true);
    expect(s.commit('chk_a')).toBe(true);
    expect(s.level()).toEqual({ onHand: -1, available: 0, held: 0 });
    expect(s.reserve({ holder: 'chk_b', quantity: 1 }, NOW)).toEqual({ ok: false, available: 0 });
    expect(s.adjust(-1)).toBe(false); // no unit on hand to lose
    expect(s.adjust(5)).toBe(true);
    expect(s.level()).toEqual({ onHand: 4, available: 4, held: 0 });
    expect(s.carry(3).onHand).toBe(4);
  });

  test('oversold is carried across continue-as-new; a count sets on hand again', () => {
    const s = new StockState(2);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.set(0);
    s.commit('chk_a');
    const next = new StockState(99, s.carry(1));
    expect(next.level()).toEqual({ onHand: -2, available: 0, held: 0 });
    expect(next.adjust(1)).toBe(true); // a delivery smaller than what was oversold
    expect(next.level().onHand).toBe(-1);
    next.set(3);
    expect(next.level()).toEqual({ onHand: 3, available: 3, held: 0 });
  });

  test('a sale within on hand does not go past it; a run before the patch stopped at 0 (countPastOnHand false)', () => {
    const s = new StockState(5);
    s.reserve({ holder: 'chk_a', quantity: 3 }, NOW);
    expect(s.sellsPastOnHand('chk_a')).toBe(false);
    s.set(1);
    expect(s.commit('chk_a', false)).toBe(true);
    expect(s.level()).toEqual({ onHand: 0, available: 0, held: 0 });
  });

  test('set to 0 with no holds: nothing for sale', () => {
    const s = new StockState(5);
    s.set(0);
    expect(s.level()).toEqual({ onHand: 0, available: 0, held: 0 });
  });
});

describe('carry and restore across continue-as-new', () => {
  test('carries on hand, holds, the version and the price', () => {
    const s = new StockState(7);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 1 }, NOW);
    s.price = 1250;
    s.release('chk_b');
    s.reserve({ holder: 'chk_b2', quantity: 1 }, NOW);
    expect(s.carry(12)).toEqual({ onHand: 7, holds: [['chk_a', 2], ['chk_b2', 1]], version: 12, price: 1250, settled: ['chk_b'] });
  });

  test('a price never set is carried as null', () => {
    expect(new StockState(3).carry(0)).toEqual({ onHand: 3, holds: [], version: 0, price: null, settled: [] });
  });

  test('a restored state is the same state: the carried on hand wins over the initial stock', () => {
    const s = new StockState(7);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 1 }, NOW);
    s.commit('chk_b');
    s.price = 990;
    const carried = JSON.parse(JSON.stringify(s.carry(4))); // as it travels in history
    const r = new StockState(100, carried);
    expect(r.level()).toEqual({ onHand: 6, available: 4, held: 2 });
    expect(r.price).toBe(990);
    expect(r.carry(4)).toEqual(s.carry(4));
  });

  test('after a restore, holders keep their holds: same holder answered, release and commit still work once', () => {
    const s = new StockState(3);
    s.reserve({ holder: 'chk_a', quantity: 2 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 1 }, NOW);
    const r = new StockState(0, s.carry(1));
    expect(r.reserve({ holder: 'chk_a', quantity: 2 }, NOW)).toEqual({ ok: true, quantity: 2, available: 0 });
    expect(r.reserve({ holder: 'chk_c', quantity: 1 }, NOW).ok).toBe(false);
    expect(r.commit('chk_a')).toBe(true);
    expect(r.commit('chk_a')).toBe(false);
    expect(r.release('chk_b')).toBe(true);
    expect(r.level()).toEqual({ onHand: 1, available: 1, held: 0 });
  });

  test('settled holders are carried: a late reserve of theirs is still refused in the new run', () => {
    const s = new StockState(3);
    s.reserve({ holder: 'chk_a', quantity: 1 }, NOW);
    s.reserve({ holder: 'chk_b', quantity: 1 }, NOW);
    s.release('chk_a');
    s.commit('chk_b');
    const r = new StockState(0, JSON.parse(JSON.stringify(s.carry(5))));
    expect(r.reserve({ holder: 'chk_a', quantity: 1 }, NOW)).toEqual({ ok: false, available: 2 });
    expect(r.reserve({ holder: 'chk_b', quantity: 1 }, NOW)).toEqual({ ok: false, available: 2 });
    expect(r.reserve({ holder: 'chk_c', quantity: 1 }, NOW).ok).toBe(true);
  });

  test('a carried state without a price or settled holders (an older run) restores with neither', () => {
    const r = new StockState(0, { onHand: 2, holds: [], version: 3 });
    expect(r.price).toBeNull();
    expect(r.settled.size).toBe(0);
    expect(r.level()).toEqual({ onHand: 2, available: 2, held: 0 });
  });

  test('the restored holds are a copy: changing the new state leaves the carried one alone', () => {
    const carried = { onHand: 2, holds: [['chk_a', 1]] as [string, number][], version: 1, price: null };
    const r = new StockState(0, carried);
    r.release('chk_a');
    expect(carried.holds).toEqual([['chk_a', 1]]);
  });
});

test('a change adds to or takes from the units on hand as they are, never below 0', () => {
  const s = new StockState(10);
  expect(s.reserve({ holder: 'chk_1', quantity: 4 }, NOW)).toMatchObject({ ok: true });
  expect(s.adjust(5)).toBe(true);
  expect(s.level()).toEqual({ onHand: 15, available: 11, held: 4 });
  expect(s.adjust(-16)).toBe(false);
  expect(s.adjust(1.5)).toBe(false);
  expect(s.level()).toEqual({ onHand: 15, available: 11, held: 4 });
  expect(s.adjust(-15)).toBe(true);
  expect(s.level()).toEqual({ onHand: 0, available: 0, held: 4 });
});

test('a reserve landing after its holder stopped waiting is refused, and so is its retry: nobody would release it', () => {
  const s = new StockState(5);
  expect(s.reserve({ holder: 'chk_late', quantity: 1, holdableUntil: NOW }, NOW)).toEqual({ ok: false, available: 5 });
  expect(s.reserve({ holder: 'chk_late', quantity: 1 }, NOW - 1)).toEqual({ ok: false, available: 5 });
  expect(s.reserve({ holder: 'chk_on_time', quantity: 2, holdableUntil: NOW + 1 }, NOW)).toEqual({ ok: true, quantity: 2, available: 3 });
});

test('keyed changes are remembered with their answers, the last CHANGE_KEYS_KEPT of them, and carried across runs', () => {
  const s = new StockState(0);
  for (let i = 0; i <= CHANGE_KEYS_KEPT; i++) s.rememberChange(`k${i}`, 1, { ok: true, level: { onHand: i, available: i, held: 0 } });
  expect(s.changes.size).toBe(CHANGE_KEYS_KEPT);
  expect(s.changes.has('k0')).toBe(false); // the oldest went
  const next = new StockState(0, s.carry(1));
  expect(next.changes.get(`k${CHANGE_KEYS_KEPT}`)).toEqual({ change: 1, answer: { ok: true, level: { onHand: CHANGE_KEYS_KEPT, available: CHANGE_KEYS_KEPT, held: 0 } } });
  // A run that never had a keyed change carries none (its carry is as before).
  expect(new StockState(3).carry(1)).not.toHaveProperty('changes');
});
