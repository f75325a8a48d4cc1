import { formatMoney, ISO_4217, minorUnitDigits } from '../../../domain/money';

test.each([
  [10025, 'EUR', '100.25 EUR'],
  [500, 'JPY', '500 JPY'],
  [1234, 'KWD', '1.234 KWD'],
  [0, 'USD', '0.00 USD'],
])('%i minor units of %s read %s', (amount, currency, text) => expect(formatMoney(amount, currency)).toBe(text));
test('ISO 4217 codes are known, others are not', () => {
  expect(ISO_4217.has('EUR')).toBe(true);
  expect(ISO_4217.has('XXY')).toBe(false);
  expect(minorUnitDigits('JPY')).toBe(0);
});
