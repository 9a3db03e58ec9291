import { diffLines } from '../../console/src/lib/line-diff';

const render = (before: string, after: string) =>
  diffLines(before, after).map(({ kind, text }) => `${{ same: ' ', added: '+', removed: '-' }[kind]}${text}`);

describe(diffLines.name, () => {
  it('should mark nothing when the texts are equal', () => {
    expect(render('a\nb', 'a\nb')).toEqual([' a', ' b']);
  });

  it('should show a changed line as removed then added, between the lines both share', () => {
    expect(render('{\n  "type": "string"\n}', '{\n  "type": "number"\n}')).toEqual([
      ' {',
      '-  "type": "string"',
      '+  "type": "number"',
      ' }',
    ]);
  });

  it('should keep the common lines of a reordered middle and mark only what moved', () => {
    expect(render('a\nb\nc\nd\ne', 'a\nc\nb\nd\ne\nf')).toEqual([' a', '-b', ' c', '+b', ' d', ' e', '+f']);
  });

  it('should handle an empty side', () => {
    expect(render('', 'x')).toEqual(['-', '+x']);
    expect(render('x\ny', 'x')).toEqual([' x', '-y']);
  });
});
