import { diffLines, foldUnchanged } from '../../console/src/lib/line-diff';

describe('foldUnchanged', () => {
  const numbered = (count: number, from = 1) => Array.from({ length: count }, (_, index) => `line ${index + from}`);

  it('should keep the context around a change and fold the unchanged runs beyond it', () => {
    const before = numbered(20).join('\n');
    const after = numbered(20)
      .map((line) => (line === 'line 10' ? 'line ten' : line))
      .join('\n');

    const shown = foldUnchanged(diffLines(before, after), 3);

    expect(shown.map((line) => line.text)).toEqual([
      '… 6 unchanged lines',
      'line 7',
      'line 8',
      'line 9',
      'line 10',
      'line ten',
      'line 11',
      'line 12',
      'line 13',
      '… 7 unchanged lines',
    ]);
    expect(shown.filter((line) => line.kind === 'removed')).toEqual([{ kind: 'removed', text: 'line 10' }]);
  });

  it('should fold two equal texts into one line', () => {
    expect(foldUnchanged(diffLines('a\nb', 'a\nb'), 3)).toEqual([{ kind: 'fold', text: '… 2 unchanged lines' }]);
  });
});
