// Exact integer arithmetic shared by the billing modules. Money products (amount × quantity, amount × seconds,
// amount × scaled percentage) easily pass 2^53, so every division that rounds goes through BigInt.

function toBig(x: number | bigint, what: string): bigint {
  if (typeof x === 'bigint') return x;
  if (!Number.isSafeInteger(x)) throw new RangeError(`${what} must be a safe integer, got ${x}`);
  return BigInt(x);
}

/** A BigInt back to a number, refusing one a double cannot hold exactly (a silent off-by-some would be worse). */
export function toSafeNumber(x: bigint): number {
  if (x > BigInt(Number.MAX_SAFE_INTEGER) || x < BigInt(Number.MIN_SAFE_INTEGER))
    throw new RangeError(`${x} is beyond the safe integer range`);
  // Number(0n) is 0, never -0, so callers can compare with Object.is semantics (Jest's toBe).
  return Number(x);
}

/** numerator / denominator rounded half away from zero (BigInt inside; inputs are safe integers; denominator > 0). */
export function divRoundHalfUp(numerator: number | bigint, denominator: number | bigint): number {
  return toSafeNumber(divRoundHalfUpBig(toBig(numerator, 'numerator'), toBig(denominator, 'denominator')));
}

/** The BigInt form of divRoundHalfUp, for callers that keep computing in BigInt. */
export function divRoundHalfUpBig(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError(`denominator must be positive, got ${d}`);
  const q = n / d; // truncates toward zero
  const r = n % d; // same sign as n
  const twiceAbsR = (r < 0n ? -r : r) * 2n;
  if (twiceAbsR >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

/**
 * A decimal such as 8.875 or 12.5 as an exact integer at 10^decimals (88 750 at 4 decimals), refusing one with
 * more decimals than that: rates are stored as doubles, and 8.875 × 10 000 is exact but 12.34 × 100 is
 * 1233.9999999999998, so round, then check the double was that decimal up to float noise.
 */
export function scaledInteger(x: number, decimals: number, what: string): bigint {
  const factor = 10 ** decimals;
  const scaled = x * factor;
  const rounded = Math.round(scaled);
  if (!Number.isFinite(scaled) || !Number.isSafeInteger(rounded) || Math.abs(scaled - rounded) > 1e-6)
    throw new RangeError(`${what} must be a number with at most ${decimals} decimals, got ${x}`);
  return BigInt(rounded);
}
