import { DomainError } from '../common/errors/domain-error';
import { RunPlaces } from './run-places';

describe(RunPlaces.name, () => {
  const full = (limit: number) => `full at ${limit}`;

  it('should hand out places up to the limit, counting the runs already waiting', () => {
    const sut = new RunPlaces(3, full);

    sut.take(false, 1);
    sut.take(false, 1);

    expect(sut.count).toBe(2);
    expect(() => sut.take(false, 1)).toThrow('full at 3');
  });

  it('should take a place back once, however often it is given back', () => {
    const sut = new RunPlaces(1, full);
    const giveBack = sut.take(false);

    giveBack();
    giveBack();

    expect(sut.count).toBe(0);
    expect(() => sut.take(false)).not.toThrow();
  });

  it('should refuse every place while draining, as unavailable', () => {
    const sut = new RunPlaces(5, full);

    expect(() => sut.take(true)).toThrow(DomainError);
    expect(() => sut.take(true)).toThrow('The service is shutting down and accepts no new runs; retry shortly');
    expect(sut.count).toBe(0);
  });
});
