import { AbbreviationTable, abbreviationsIn } from './abbreviations';

describe(abbreviationsIn.name, () => {
  it('should find the short forms a text defines by the initials of the words before them', () => {
    expect(
      abbreviationsIn('Creates a Customer Service Management (CSM) case for configuration items (CIs) of a class.'),
    ).toEqual([
      ['csm', ['customer', 'servic', 'management']],
      ['ci', ['configurat', 'item']],
    ]);
  });

  it('should not take a parenthesis whose initials do not match, nor a stop word', () => {
    expect(abbreviationsIn('Sends the request (GET) to the information technology (IT) desk')).toEqual([]);
  });

  // Any user's tool text reaches this (a parameter's description is unbounded up to the 1 MB body). With unbounded
  // words the pattern backtracked over a run of letters from every position: this case took 33 s on the event
  // loop, now 26 ms (measured; tests do not assert time). What it pins is the answer on such a text.
  it('should read a text holding a long run of letters in one pass', () => {
    const text = `${'x'.repeat(200_000)}. Then configuration items (CIs)`;

    expect(abbreviationsIn(text)).toEqual([['ci', ['configurat', 'item']]]);
  });
});

describe(AbbreviationTable.name, () => {
  const sut = new AbbreviationTable([
    ['ci', ['configurat', 'item']],
    ['cdm', ['configurat', 'data', 'management']],
    ['cdm', ['configurat', 'data', 'model']],
  ]);

  it("should expand a short form, plural too, to each of its long forms' terms", () => {
    expect(sut.expand(['cis', 'record'])).toEqual(['configurat', 'item']);
    expect(sut.expand(['cdm'])).toEqual(['configurat', 'data', 'management', 'configurat', 'data', 'model']);
  });

  it("should widen a query's own terms with short forms of its long forms and long forms of its short forms", () => {
    expect(sut.widen(new Set(['updat', 'configurat', 'item']))).toEqual(['ci']);
    expect(sut.widen(new Set(['cdm', 'data']))).toEqual(['configurat', 'management', 'model']);
  });
});
