import type { AddressSnapshot } from '../platform/records';

/**
 * An Address object of the spec (camelCase), from a saved address or a snapshot of one: what the commerce
 * endpoints answer (api/carts/views.ts checks it against their schema) and what a return's webhook carries.
 */
export function addressObject(r: AddressSnapshot) {
  return { id: r._id, phone: r.phone, additionalPhone: r.additional_phone, address: r.address, additionalInfo: r.additional_info, region: r.region, city: r.city };
}
