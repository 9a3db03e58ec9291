import { placeholdersInJson, renderJson, renderUrl, urlAuthority } from './placeholder-template';

describe(renderUrl.name, () => {
  it('should percent-encode values so they cannot add path, query or fragment parts', () => {
    expect(renderUrl('https://api.test/v1/{id}?q={q}', { id: 'a/b?c#d', q: 'x&y=z' })).toBe(
      'https://api.test/v1/a%2Fb%3Fc%23d?q=x%26y%3Dz',
    );
  });

  it('should refuse values that make dot segments', () => {
    expect(() => renderUrl('https://api.test/{a}{b}/x', { a: '.', b: '.' })).toThrow('path segments');
  });

  it('should render a missing argument as empty', () => {
    expect(renderUrl('https://api.test/{id}', {})).toBe('https://api.test/');
  });
});

describe(renderJson.name, () => {
  it('should keep types for exact placeholders, interpolate others and drop missing ones', () => {
    expect(
      renderJson({ n: '{n}', list: ['{n}', '{gone}'], text: 'n={n}', gone: '{gone}', fixed: 3 }, { n: 4 }),
    ).toEqual({
      n: 4,
      list: [4, null],
      text: 'n=4',
      fixed: 3,
    });
  });
});

describe(placeholdersInJson.name, () => {
  it('should give JSON pointers with escaped keys', () => {
    expect(placeholdersInJson({ 'a/b': { c: '{x} {y}' } }, '/body')).toEqual([
      { path: '/body/a~1b/c', name: 'x' },
      { path: '/body/a~1b/c', name: 'y' },
    ]);
  });
});

describe(urlAuthority.name, () => {
  it('should return the scheme, host and port part', () => {
    expect(urlAuthority('https://{region}.api.test:8443/v1/{id}')).toBe('https://{region}.api.test:8443');
  });
});
