import type { PaymentMethodName } from './catalog';

// Logos we serve ourselves, so a merchant's picker never hotlinks a third party and the hosted page's CSP
// can stay `img-src 'self'`. Deliberately plain marks (shapes and system-font text), not brand artwork.
// Logos are 64x40 badges (the usual payment-badge ratio); favicons are 32x32 squares.

const FONT = 'font-family="system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif"';

const svg = (w: number, h: number, title: string, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${title}"><title>${title}</title>${body}</svg>\n`;

const badge = (fill: string, stroke = fill) => `<rect x="0.5" y="0.5" width="63" height="39" rx="6" fill="${fill}" stroke="${stroke}"/>`;
const tile = (fill: string) => `<rect width="32" height="32" rx="7" fill="${fill}"/>`;

const bankGlyph = (x: number, y: number, s: number, color: string) =>
  `<g transform="translate(${x} ${y}) scale(${s})" fill="${color}">` +
  '<path d="M10 0 20 5v2H0V5z"/><rect x="2" y="8" width="2.4" height="7"/><rect x="6.5" y="8" width="2.4" height="7"/>' +
  '<rect x="11.1" y="8" width="2.4" height="7"/><rect x="15.6" y="8" width="2.4" height="7"/><rect x="0" y="16" width="20" height="2.4"/></g>';

const phoneGlyph = (x: number, y: number, s: number, color: string, screen: string) =>
  `<g transform="translate(${x} ${y}) scale(${s})">` +
  `<rect x="0" y="0" width="12" height="20" rx="2.2" fill="${color}"/><rect x="1.6" y="2.4" width="8.8" height="13" rx="0.8" fill="${screen}"/>` +
  `<circle cx="6" cy="17.7" r="1" fill="${screen}"/></g>`;

const LOGOS: Record<PaymentMethodName, string> = {
  card: svg(
    64,
    40,
    'Card',
    badge('#ffffff', '#c9d1dc') +
      '<rect x="10" y="9" width="44" height="24" rx="3" fill="#3b4cca"/><rect x="10" y="13" width="44" height="4" fill="#1f2a7a"/>' +
      '<rect x="14" y="21" width="7" height="5" rx="1" fill="#f2c94c"/><rect x="34" y="26" width="16" height="2.5" rx="1" fill="#c7cdf8"/>',
  ),
  apple_pay: svg(64, 40, 'Apple Pay', badge('#000000') + `<text x="32" y="25" text-anchor="middle" ${FONT} font-size="12" font-weight="600" fill="#ffffff">Apple Pay</text>`),
  google_pay: svg(
    64,
    40,
    'Google Pay',
    badge('#ffffff', '#c9d1dc') +
      `<text x="32" y="25" text-anchor="middle" ${FONT} font-size="12" font-weight="600"><tspan fill="#1a73e8">G</tspan><tspan fill="#3c4043"> Pay</tspan></text>`,
  ),
  sepa_debit: svg(
    64,
    40,
    'SEPA Direct Debit',
    badge('#10298e') +
      `<text x="32" y="21" text-anchor="middle" ${FONT} font-size="13" font-weight="800" fill="#ffffff" letter-spacing="1">SEPA</text>` +
      `<text x="32" y="31" text-anchor="middle" ${FONT} font-size="6.5" fill="#ffcc00">DIRECT DEBIT</text>`,
  ),
  bank_transfer: svg(64, 40, 'Bank transfer', badge('#ffffff', '#c9d1dc') + bankGlyph(21, 9, 1.1, '#0f766e')),
  mobile_money: svg(
    64,
    40,
    'Mobile money',
    badge('#fff8e6', '#e9c46a') +
      phoneGlyph(24, 9, 1.1, '#8a5a00', '#fff8e6') +
      '<path d="M42 14a8 8 0 0 1 0 12M45.5 11a12.5 12.5 0 0 1 0 18" fill="none" stroke="#8a5a00" stroke-width="1.8" stroke-linecap="round"/>',
  ),
};

const FAVICONS: Record<PaymentMethodName, string> = {
  card: svg(
    32,
    32,
    'Card',
    tile('#3b4cca') + '<rect x="6" y="9" width="20" height="14" rx="2" fill="#ffffff"/><rect x="6" y="12" width="20" height="3" fill="#1f2a7a"/>',
  ),
  apple_pay: svg(32, 32, 'Apple Pay', tile('#000000') + `<text x="16" y="21" text-anchor="middle" ${FONT} font-size="11" font-weight="700" fill="#ffffff">Pay</text>`),
  google_pay: svg(
    32,
    32,
    'Google Pay',
    '<rect x="0.5" y="0.5" width="31" height="31" rx="7" fill="#ffffff" stroke="#c9d1dc"/>' +
      `<text x="16" y="22" text-anchor="middle" ${FONT} font-size="16" font-weight="700" fill="#1a73e8">G</text>`,
  ),
  sepa_debit: svg(32, 32, 'SEPA Direct Debit', tile('#10298e') + `<text x="16" y="21" text-anchor="middle" ${FONT} font-size="15" font-weight="800" fill="#ffcc00">€</text>`),
  bank_transfer: svg(32, 32, 'Bank transfer', tile('#0f766e') + bankGlyph(6, 6.5, 1, '#ffffff')),
  mobile_money: svg(32, 32, 'Mobile money', tile('#8a5a00') + phoneGlyph(10, 6, 1, '#ffffff', '#8a5a00')),
};

export function logoSvg(name: PaymentMethodName, kind: 'logo' | 'favicon'): string {
  return (kind === 'favicon' ? FAVICONS : LOGOS)[name];
}
