import { encode } from 'gpt-tokenizer';
import { CUT_NOTE_START, cutToolResult } from './cut-tool-result';

describe(cutToolResult.name, () => {
  const options = { maxTokens: 300, ref: 'ref-1' };

  it('should leave a result that fits alone', () => {
    expect(cutToolResult('{"ok":true}', options)).toBeNull();
  });

  it('should keep the keys of a large JSON result, shorten its arrays and say how many items were dropped', () => {
    const rows = Array.from({ length: 5000 }, (_, id) => ({ id, name: `customer ${id}`, email: `c${id}@example.com` }));
    const text = JSON.stringify({ total: 5000, page: 1, next: 'cursor-2', rows });

    const cut = cutToolResult(text, options) ?? '';

    expect(encode(cut).length).toBeLessThanOrEqual(300);
    const [json, note] = cut.split('\n');
    const shortened = JSON.parse(json) as { total: number; next: string; rows: unknown[] };
    expect(Object.keys(shortened)).toEqual(['total', 'page', 'next', 'rows']);
    expect(shortened).toMatchObject({ total: 5000, next: 'cursor-2' });
    expect(shortened.rows[0]).toEqual({ id: 0, name: 'customer 0', email: 'c0@example.com' });
    const kept = shortened.rows.length - 1;
    expect(shortened.rows.at(-1)).toBe(`… ${5000 - kept} more items`);
    expect(note).toContain(`$.rows kept ${kept} of 5000 items (${5000 - kept} dropped)`);
    expect(note.startsWith(CUT_NOTE_START)).toBe(true);
    expect(note).toContain(`${text.length} characters`);
    expect(note).toContain('"ref": "ref-1"');
  });

  it('should shorten long strings inside JSON', () => {
    const text = JSON.stringify({ title: 'Report', body: 'lorem ipsum '.repeat(5000) });

    const cut = cutToolResult(text, options) ?? '';
    const shortened = JSON.parse(cut.split('\n')[0]) as { title: string; body: string };

    expect(shortened.title).toBe('Report');
    expect(shortened.body).toMatch(/^lorem ipsum .*… \[\d+ more characters\]$/);
    expect(cut).toContain('1 long strings shortened');
  });

  it('should keep the head and the tail of a long text or markdown result', () => {
    const lines = Array.from({ length: 4000 }, (_, index) => `## Section ${index}\nSome text of section ${index}.`);
    const text = lines.join('\n');

    const cut = cutToolResult(text, options) ?? '';

    expect(encode(cut).length).toBeLessThanOrEqual(300);
    expect(cut.startsWith('## Section 0\nSome text of section 0.')).toBe(true);
    expect(cut).toContain('Some text of section 3999.');
    expect(cut).toMatch(/\[… \d+ characters cut here …\]/);
    expect(cut).toMatch(/kept the first \d+ and last \d+ characters/);
  });

  it('should treat text that only starts like JSON as text', () => {
    const text = `{not json} ${'words '.repeat(3000)}`;

    expect(cutToolResult(text, options)).toMatch(/^\{not json\}.*characters cut here/s);
  });

  it('should say so when the full result could not be stored', () => {
    expect(cutToolResult('x '.repeat(5000), { maxTokens: 100, ref: null })).toContain(
      'The full result could not be stored.',
    );
  });
});
