import { trusted } from './html';

// Inline SVG icons of the checkout pages. Decorative (aria-hidden): the text next to each says the same.

const icon = (body: string, cls = 'icon') =>
  trusted(`<svg class="${cls}" aria-hidden="true" focusable="false" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`);

export const ICONS = {
  lock: icon('<rect x="5" y="11" width="14" height="10" rx="2"/><path d="M8 11V8a4 4 0 0 1 8 0v3"/>', 'icon icon-lock'),
  success: icon('<circle cx="12" cy="12" r="10"/><path d="m7.5 12.5 3 3 6-6.5"/>', 'icon icon-outcome'),
  failure: icon('<circle cx="12" cy="12" r="10"/><path d="m15 9-6 6M9 9l6 6"/>', 'icon icon-outcome'),
  clock: icon('<circle cx="12" cy="12" r="10"/><path d="M12 7v5l3 2"/>', 'icon icon-outcome'),
  shield: icon('<path d="M12 3 4.5 6v5.5c0 4.6 3.2 8.3 7.5 9.5 4.3-1.2 7.5-4.9 7.5-9.5V6z"/><path d="m8.8 12.2 2.3 2.3 4.2-4.6"/>', 'icon icon-outcome'),
  alert: icon('<circle cx="12" cy="12" r="10"/><path d="M12 8v5M12 16.5v.01"/>', 'icon icon-alert'),
};
