import { serializeQueryValue } from './serialize-query';

describe(serializeQueryValue.name, () => {
  it('should repeat the name for an exploded form array, the OpenAPI default', () => {
    expect(serializeQueryValue('tags', ['a', 'b'], { style: 'form' })).toEqual([
      ['tags', 'a'],
      ['tags', 'b'],
    ]);
  });

  it('should join a non-exploded array with the delimiter of its style', () => {
    expect(serializeQueryValue('tags', ['a', 'b'], { style: 'form', explode: false })).toEqual([['tags', 'a,b']]);
    expect(serializeQueryValue('tags', ['a', 'b'], { style: 'spaceDelimited' })).toEqual([['tags', 'a b']]);
    expect(serializeQueryValue('tags', [1, 2], { style: 'pipeDelimited' })).toEqual([['tags', '1|2']]);
  });

  it('should spread an object into its keys when exploded and into name[key] as a deepObject', () => {
    expect(serializeQueryValue('filter', { color: 'red', size: 2 }, { style: 'form' })).toEqual([
      ['color', 'red'],
      ['size', '2'],
    ]);
    expect(serializeQueryValue('filter', { color: 'red', size: 2 }, { style: 'form', explode: false })).toEqual([
      ['filter', 'color,red,size,2'],
    ]);
    expect(serializeQueryValue('filter', { color: 'red' }, { style: 'deepObject', explode: true })).toEqual([
      ['filter[color]', 'red'],
    ]);
  });

  it('should send a scalar as one pair whatever the style', () => {
    expect(serializeQueryValue('limit', 5, { style: 'pipeDelimited' })).toEqual([['limit', '5']]);
  });
});
