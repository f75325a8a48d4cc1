// Where a gateway posts asynchronous outcomes for one of our effects: `<base>/callbacks/<gateway>/<reference>`,
// the route api/callbacks serves. The one place that spells it: the activities build it for every gateway
// call, from the connector's gateway, and adapters may read the reference back from it.

export function callbackUrl(base: string, gateway: string, reference: string): string {
  return `${base.replace(/\/+$/, '')}/callbacks/${encodeURIComponent(gateway)}/${encodeURIComponent(reference)}`;
}

/** The reference (pi_, re_, payout uuid) at the end of one of our callback URLs, if it is one. */
export function referenceFromCallbackUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const match = /\/callbacks\/[^/]+\/([^/]+)\/?$/.exec(new URL(url).pathname);
    return match ? decodeURIComponent(match[1]!) : undefined;
  } catch {
    return undefined;
  }
}
