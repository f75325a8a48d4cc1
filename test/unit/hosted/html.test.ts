import { escapeHtml, html, jsonForScript, safeHttpUrl, trusted } from '../../../api/hosted/html';

describe('HTML escaping', () => {
  test('escapes the characters that can break out of text or an attribute', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;');
  });

  test('the html tag escapes every interpolated value', () => {
    const name = '<img src=x onerror=alert(1)>';
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  test('nested templates and trusted markup are kept, not escaped twice', () => {
    const inner = html`<b>${'Tom & Jerry'}</b>`;
    expect(html`<p>${inner}${trusted('<svg></svg>')}</p>`.value).toBe('<p><b>Tom &amp; Jerry</b><svg></svg></p>');
  });

  test('arrays are joined, and null, undefined and false render nothing', () => {
    expect(html`<ul>${['<a>', html`<li>b</li>`]}</ul>${null}${undefined}${false}${0}`.value).toBe('<ul>&lt;a&gt;<li>b</li></ul>0');
  });

  test('JSON in a script data block cannot close the element or open a comment', () => {
    const out = jsonForScript({ name: '</script><script>alert(1)</script><!--', amp: 'a&b', ls: '\u2028' }).value;
    expect(out).not.toMatch(/<|>|&|\u2028/);
    expect(JSON.parse(out)).toEqual({ name: '</script><script>alert(1)</script><!--', amp: 'a&b', ls: '\u2028' });
  });

  test('only http(s) URLs are used as links and redirects', () => {
    expect(safeHttpUrl('https://shop.example.com/done?x=1')).toBe('https://shop.example.com/done?x=1');
    expect(safeHttpUrl('http://127.0.0.1:8080/return')).toBe('http://127.0.0.1:8080/return');
    expect(safeHttpUrl('javascript:alert(1)')).toBeNull();
    expect(safeHttpUrl('data:text/html,<script>')).toBeNull();
    expect(safeHttpUrl('not a url')).toBeNull();
    expect(safeHttpUrl(null)).toBeNull();
  });
});
