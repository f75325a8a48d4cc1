import { newId } from '../platform/ids';
import type { Mongo } from '../platform/mongo';
import type { AddressRecord } from '../platform/records';

/** An address as a request gives it (POST /commerce/addresses, or a checkout's full shippingAddress). */
export interface AddressInput {
  phone: string;
  additionalPhone?: string | null;
  address: string;
  additionalInfo?: string | null;
  region: string;
  city: string;
}

/** How many of a user's addresses a cart lists (`customerAddresses`), newest first. */
export const MAX_LISTED_ADDRESSES = 50;

/** A stored address (or a snapshot of one) with the fields a request gave: one address, not saved twice. */
export const sameAddress = (r: Pick<AddressRecord, 'phone' | 'additional_phone' | 'address' | 'additional_info' | 'region' | 'city'>, a: AddressInput) =>
  r.phone === a.phone &&
  (r.additional_phone ?? null) === (a.additionalPhone ?? null) &&
  r.address === a.address &&
  (r.additional_info ?? null) === (a.additionalInfo ?? null) &&
  r.region === a.region &&
  r.city === a.city;

/** An address as stored (snake_case), from how a request gives it. */
export function storedAddressFields(a: AddressInput): Pick<AddressRecord, 'phone' | 'additional_phone' | 'address' | 'additional_info' | 'region' | 'city'> {
  return { phone: a.phone, additional_phone: a.additionalPhone ?? null, address: a.address, additional_info: a.additionalInfo ?? null, region: a.region, city: a.city };
}

/** Saved addresses of a tenant's users (the merchant's `userId`), every query scoped by tenant and user. */
export function addressData(mongo: Mongo) {
  const c = mongo.c.addresses;
  return {
    /** One of this user's addresses; null when the id is unknown, another user's or another tenant's. */
    find: (tenantId: string, userId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId, user_id: userId }),
    /** The user's addresses, newest first (at most MAX_LISTED_ADDRESSES). */
    ofUser: (tenantId: string, userId: string) =>
      c.find({ tenant_id: tenantId, user_id: userId }).sort({ created_at: -1, _id: -1 }).limit(MAX_LISTED_ADDRESSES).toArray(),
    /**
     * Saves an address for a user and answers its record. `reuseIdentical` (a checkout given a full address
     * again): an address of this user with exactly these fields is answered instead of a second copy.
     */
    save: async (tenantId: string, region: string, userId: string, input: AddressInput, opts: { reuseIdentical?: boolean } = {}): Promise<AddressRecord> => {
      if (opts.reuseIdentical) {
        const same = (await c.find({ tenant_id: tenantId, user_id: userId, address: input.address, city: input.city }).toArray()).find((r) => sameAddress(r, input));
        if (same) return same;
      }
      const record: AddressRecord = {
        _id: newId('addr', region),
        tenant_id: tenantId,
        user_id: userId,
        ...storedAddressFields(input),
        created_at: new Date(),
      };
      await c.insertOne(record);
      return record;
    },
  };
}
