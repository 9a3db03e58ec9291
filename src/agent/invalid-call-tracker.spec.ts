import { InvalidCallTracker } from './invalid-call-tracker';

describe(InvalidCallTracker.name, () => {
  it('should disable a tool on its limit-th invalid call in a row', () => {
    const sut = new InvalidCallTracker(3);
    const disabledNow = [1, 2, 3].map(() => sut.record('search', 'invalid_arguments'));
    expect(disabledNow).toEqual([false, false, true]);
    expect(sut.isDisabled('search')).toBe(true);
    expect([...sut.disabled]).toEqual(['search']);
  });

  it('should reset the streak after a valid call', () => {
    const sut = new InvalidCallTracker(2);
    sut.record('search', 'invalid_arguments');
    sut.record('search', 'error');
    expect(sut.record('search', 'invalid_arguments')).toBe(false);
    expect(sut.isDisabled('search')).toBe(false);
  });

  it('should count each tool separately', () => {
    const sut = new InvalidCallTracker(2);
    sut.record('search', 'invalid_arguments');
    sut.record('fetch', 'invalid_arguments');
    expect(sut.isDisabled('search')).toBe(false);
    expect(sut.isDisabled('fetch')).toBe(false);
  });

  it('should report the disabling only once', () => {
    const sut = new InvalidCallTracker(1);
    expect(sut.record('search', 'invalid_arguments')).toBe(true);
    expect(sut.record('search', 'invalid_arguments')).toBe(false);
  });

  it('should neither count nor reset on statuses that say nothing about the arguments', () => {
    const sut = new InvalidCallTracker(2);
    sut.record('search', 'invalid_arguments');
    sut.record('search', 'skipped');
    sut.record('search', 'cancelled');
    expect(sut.record('search', 'invalid_arguments')).toBe(true);
  });
});
