import { formatMoney } from '../../domain/money';
import type { LineItem, PaymentIntentRecord } from '../../platform/records';
import { isHttpsOrigin, originOf } from './csp';

// The purchase's lines (the older create's `line_items`) as the hosted page shows them, and the image
// origins its Content-Security-Policy must allow for them. Both come from this one function, so the page
// never shows an image the policy would block, nor allows an origin it shows nothing from.

export interface LineItemView {
  name: string;
  quantity: number;
  /** The unit price and the line's total, formatted in the intent's currency. */
  unitPrice: string;
  total: string;
  /** An https image URL whose origin the page's CSP allows, or null. */
  image: string | null;
}

/** Image origins one page may load from: a bound on the CSP header, not on the lines (extra images are left out). */
export const MAX_IMAGE_ORIGINS = 10;

/**
 * Only https images: an http image would be mixed content on our page, and `data:`/`javascript:` URLs are
 * never a merchant's picture. No credentials in the URL, and an origin a CSP source expression can name.
 */
export function safeImageUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || !raw || raw.length > 2048) return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'https:' || u.username || u.password || !isHttpsOrigin(u.origin)) return null;
    return u.toString();
  } catch {
    return null;
  }
}

function isLine(l: unknown): l is LineItem {
  if (!l || typeof l !== 'object') return false;
  const { name, quantity, price } = l as Partial<LineItem>;
  return typeof name === 'string' && Number.isFinite(quantity) && Number.isFinite(price);
}

export interface LineItems {
  items: LineItemView[];
  /** The https origins of the images in `items`: what the page's img-src must allow. */
  imageOrigins: string[];
}

export function lineItemsOf(intent: Pick<PaymentIntentRecord, 'line_items' | 'currency'>): LineItems {
  const lines = Array.isArray(intent.line_items) ? intent.line_items.filter(isLine) : [];
  const origins: string[] = [];
  const items = lines.map((l): LineItemView => {
    let image = safeImageUrl(l.image);
    if (image) {
      const origin = originOf(image);
      if (!origins.includes(origin)) {
        if (origins.length < MAX_IMAGE_ORIGINS) origins.push(origin);
        else image = null;
      }
    }
    return {
      name: l.name,
      quantity: l.quantity,
      unitPrice: formatMoney(l.price, intent.currency),
      total: formatMoney(Math.round(l.quantity * l.price), intent.currency),
      image,
    };
  });
  return { items, imageOrigins: origins };
}
