import { plainText, redactUrl } from '../../../domain/operator-text';

test('merchant-given text reads as itself in the Temporal UI, which renders Markdown: no bold, link or image of its making', () => {
  const shown = plainText('op-md **BOLD** [Click to confirm payout](http://127.0.0.1:4999/phish) ![img](http://x/i.png)\n# heading');
  expect(shown).toBe('op\\-md \\*\\*BOLD\\*\\* \\[Click to confirm payout\\]\\(http://127\\.0\\.0\\.1:4999/phish\\) \\!\\[img\\]\\(http://x/i\\.png\\) \\# heading');
  expect(plainText('user_42')).toBe('user\\_42');
  expect(plainText('plain')).toBe('plain');
});

test("a webhook URL is shown to operators without the path that may carry the receiver's secret", () => {
  expect(redactUrl('https://hooks.example.com/services/T0/B0/secret?x=1')).toBe('https://hooks.example.com/[redacted]');
});
