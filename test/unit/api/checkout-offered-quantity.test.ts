import { lateRefusal, offeredQuantity } from '../../../api/checkouts/service';

// What a checkout's cartChanges offers of a line whose units could not all be held.

test('a held line is offered whole; a line short of stock is offered what is available', () => {
  expect(offeredQuantity(3, { ok: true, available: 10 })).toBe(3);
  expect(offeredQuantity(3, { ok: false, available: 1 })).toBe(1);
  expect(offeredQuantity(3, { ok: false, available: 0 })).toBe(0);
});

test('a reserve refused for coming late (it answers all there is for sale) is never offered more than was asked for', () => {
  expect(offeredQuantity(2, { ok: false, available: 500 })).toBe(2);
});

test('a refusal with enough for sale is a late one (nothing held: the checkout must not go on to payment); a shortfall is not', () => {
  expect(lateRefusal(2, { ok: false, available: 500 })).toBe(true);
  expect(lateRefusal(2, { ok: false, available: 2 })).toBe(true);
  expect(lateRefusal(3, { ok: false, available: 2 })).toBe(false);
  expect(lateRefusal(2, { ok: true, available: 10 })).toBe(false);
  expect(lateRefusal(2, undefined)).toBe(false);
});

test('a line the stock never answered for is offered nothing', () => {
  expect(offeredQuantity(2, undefined)).toBe(0);
});
