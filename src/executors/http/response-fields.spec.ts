import { pickFields, readPath } from './response-fields';

describe(readPath.name, () => {
  const data = { current: { temp_c: 21 }, items: [{ name: 'a' }, { name: 'b', tags: ['x'] }] };

  it.each([
    ['current.temp_c', 21],
    ['items[1].name', 'b'],
    ['items[1].tags[0]', 'x'],
    ['items.name', undefined],
    ['current[0]', undefined],
    ['missing.deep.path', undefined],
  ])('should read %s', (path, expected) => {
    expect(readPath(data, path)).toEqual(expected);
  });
});

describe(pickFields.name, () => {
  it('should key the kept values by path and report missing ones as null', () => {
    expect(pickFields({ a: { b: 1 } }, ['a.b', 'a.c'])).toEqual({ 'a.b': 1, 'a.c': null });
  });
});
