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
