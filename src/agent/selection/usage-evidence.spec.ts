import { OwnerEvidence, UsageEvidence } from './usage-evidence';

describe(UsageEvidence.name, () => {
  it('should keep terms of the task, never its text, digits, addresses or URLs', () => {
    expect(
      UsageEvidence.termsOf('Email the Q3 report to ana@example.com, order 12345, see https://x.io/a?b=c'),
    ).toEqual(['email', 'report', 'order', 'see']);
  });

  it('should score a tool only with the terms it was called for', () => {
    const sut = new UsageEvidence();
    sut.record('Where are the best barber shops nearby?', 'places_search');

    expect(sut.scores('barber shops in Rome').get('places_search')).toBeGreaterThan(0);
    expect(sut.scores('send an email to Ana').size).toBe(0);
  });

  it('should never promote a tool by text it was never called for', () => {
    const sut = new UsageEvidence();
    for (let index = 0; index < 20; index++) sut.record('barber shops nearby', 'places_search');
    sut.record('send the invoice by email', 'send_email');

    const scores = sut.scores('barber shops nearby');

    expect([...scores.keys()]).toEqual(['places_search']);
    expect(sut.scores('invoice email').has('places_search')).toBe(false);
  });

  it('should halve its evidence every half-life and forget what fell away', () => {
    let now = 0;
    const sut = new UsageEvidence({ halfLifeMs: 1000, now: () => now });
    sut.record('barber shops', 'places_search');
    sut.record('weather forecast', 'get_weather');
    const fresh = sut.scores('barber').get('places_search') ?? 0;

    now = 1000;
    sut.record('weather forecast', 'get_weather');
    now = 20_000;

    expect(fresh).toBeGreaterThan(0);
    expect(sut.scores('barber').get('places_search')).toBeUndefined();
  });

  it('should keep at most its bound of terms per tool and of tools', () => {
    const sut = new UsageEvidence({ termsPerTool: 2, tools: 2 });
    sut.record('alpha beta gamma', 'first');
    sut.record('alpha', 'first');
    sut.record('delta', 'second');
    sut.record('epsilon', 'third');

    expect(sut.scores('alpha beta gamma').get('first')).toBeUndefined();
    expect(sut.scores('delta epsilon').size).toBe(2);
  });
});

describe(OwnerEvidence.name, () => {
  it('should keep each owner apart', () => {
    const sut = new OwnerEvidence();
    sut.of('ana').record('barber shops', 'places_search');

    expect(sut.of('bob').scores('barber shops').size).toBe(0);
    expect(sut.of('ana').scores('barber shops').size).toBe(1);
  });
});
