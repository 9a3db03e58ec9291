import { JsonTextRedactor, redactJsonText } from './json-text-redactor';
import { maskArguments } from './argument-secrets';
import { SECRET_MASK } from './secrets';

/** Feeds `text` in pieces of `size` characters and returns everything the redactor let through. */
const streamed = (text: string, size: number): { out: string; pieces: string[] } => {
  const redactor = new JsonTextRedactor();
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(redactor.push(text.slice(at, at + size)));
  pieces.push(redactor.end());
  return { out: pieces.join(''), pieces };
};

const SAMPLES = [
  {
    url: 'https://api.example.com/v1/items?access_token=abcd1234&page=2',
    headers: { Authorization: 'Bearer sk-live-999' },
  },
  {
    query: { api_key: 'k-\\"quoted\\"-1', q: 'weather in Paris' },
    password: 'hunter22',
    nested: [{ session_id: 's-77' }],
  },
  { code: 'return 1 + 1;', note: 'has "quotes" and \\ backslashes', token: '', count: 3, ok: true, nothing: null },
  { list: ['http://x.test/?secret=zz', 'h', 'ht'], 'X-Api-Token': 'tok-1', other: { deep: { signature: 'sig' } } },
  { author: 'Jane Austen', keyword: 'pride', sort_key: 'title', credentials: { user: 'u', nested: ['p'] } },
];

describe('JsonTextRedactor', () => {
  it.each(SAMPLES.map((sample) => [JSON.stringify(sample)]))(
    'masks what maskArguments masks, in any chunking: %s',
    (text) => {
      const expected = JSON.stringify(maskArguments(JSON.parse(text)));
      for (const size of [1, 2, 3, 7, 1000]) expect(streamed(text, size).out).toBe(expected);
    },
  );

  it('never lets a character of a secret value through, not even before it closes', () => {
    // Q and J appear nowhere else in the text: any of them in the output is a leak.
    const text = JSON.stringify({ headers: { Authorization: 'QQQ-live' }, url: 'https://h.test/?token=JJJJ' });
    const redactor = new JsonTextRedactor();
    let out = '';
    for (const char of text) {
      out += redactor.push(char);
      expect(out).not.toMatch(/[QJ]/);
    }
    expect(out + redactor.end()).toBe(JSON.stringify(maskArguments(JSON.parse(text))));
  });

  it('streams ordinary strings live instead of holding them to the end', () => {
    const redactor = new JsonTextRedactor();
    expect(redactor.push('{"code": "while (tr')).toBe('{"code": "while (tr');
    expect(redactor.push('ue) {}"}')).toBe('ue) {}"}');
  });

  it('masks an unterminated secret at the end and passes text that is not JSON through', () => {
    expect(redactJsonText('{"password": "abc')).toBe(`{"password": "${SECRET_MASK}`);
    expect(redactJsonText('add(a=7, b=8)')).toBe('add(a=7, b=8)');
  });
});
