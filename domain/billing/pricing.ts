// What a plan charges for a quantity over one period, as Stripe prices do. A tier's `up_to` is inclusive (the
// next tier starts at up_to + 1) and null means "and above".
import { toSafeNumber } from './rounding';

export interface PlanPrice {
  amount: number; // per unit (per_unit scheme)
  billing_scheme: 'per_unit' | 'tiered';
  tiers_mode: 'graduated' | 'volume' | null;
  tiers: { up_to: number | null; unit_amount: number; flat_amount: number }[] | null; // ascending up_to, last is null
}

const isMinorUnits = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** Validation helper for the plan create endpoint: null when fine, else a message (tiers ascending, exactly one last tier with up_to null, non-negative integers, tiers present iff tiered). */
export function tierProblem(plan: PlanPrice): string | null {
  if (!isMinorUnits(plan.amount)) return 'amount must be a non-negative integer in minor units';
  if (plan.billing_scheme === 'per_unit') {
    if (plan.tiers !== null) return 'tiers are only allowed with billing_scheme tiered';
    if (plan.tiers_mode !== null) return 'tiers_mode is only allowed with billing_scheme tiered';
    return null;
  }
  if (plan.billing_scheme !== 'tiered') return 'billing_scheme must be per_unit or tiered';
  if (plan.tiers_mode !== 'graduated' && plan.tiers_mode !== 'volume') return 'tiers_mode must be graduated or volume when billing_scheme is tiered';
  if (!Array.isArray(plan.tiers) || plan.tiers.length === 0) return 'tiers are required when billing_scheme is tiered';
  let previous = 0;
  for (let i = 0; i < plan.tiers.length; i += 1) {
    const tier = plan.tiers[i];
    const last = i === plan.tiers.length - 1;
    if (!isMinorUnits(tier.unit_amount)) return `tiers[${i}].unit_amount must be a non-negative integer in minor units`;
    if (!isMinorUnits(tier.flat_amount)) return `tiers[${i}].flat_amount must be a non-negative integer in minor units`;
    if (tier.up_to === null) {
      if (!last) return `only the last tier may have up_to null (tiers[${i}] does)`;
      continue;
    }
    if (last) return 'the last tier must have up_to null ("and above")';
    if (!Number.isSafeInteger(tier.up_to) || tier.up_to < 1) return `tiers[${i}].up_to must be a positive integer`;
    if (tier.up_to <= previous) return `tiers[${i}].up_to must be greater than the previous tier's (${previous})`;
    previous = tier.up_to;
  }
  return null;
}

/** The price of `quantity` units for one period: per_unit = amount × quantity; tiered graduated = each tier prices the units that fall in it (plus its flat_amount when any unit falls in it); tiered volume = the tier that holds the total quantity prices all units (plus its flat_amount). quantity 0 -> 0. */
export function priceOf(plan: PlanPrice, quantity: number): number {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`quantity must be a non-negative integer, got ${quantity}`);
  const problem = tierProblem(plan);
  if (problem !== null) throw new RangeError(`invalid plan price: ${problem}`);
  if (quantity === 0) return 0;
  const q = BigInt(quantity);
  if (plan.billing_scheme === 'per_unit') return toSafeNumber(BigInt(plan.amount) * q);
  const tiers = plan.tiers ?? [];
  if (plan.tiers_mode === 'volume') {
    const tier = tiers.find((t) => t.up_to === null || quantity <= t.up_to) ?? tiers[tiers.length - 1];
    return toSafeNumber(BigInt(tier.unit_amount) * q + BigInt(tier.flat_amount));
  }
  let total = 0n;
  let below = 0; // units already priced by earlier tiers
  for (const tier of tiers) {
    if (quantity <= below) break;
    const upper = tier.up_to === null ? quantity : Math.min(quantity, tier.up_to);
    total += BigInt(upper - below) * BigInt(tier.unit_amount) + BigInt(tier.flat_amount);
    below = upper;
  }
  return toSafeNumber(total);
}
