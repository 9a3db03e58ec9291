import { parseQueryTarget } from './query-target';

describe(parseQueryTarget.name, () => {
  it.each([
    ['sqlite:/var/data/app.db', { kind: 'sqlite', file: '/var/data/app.db' }],
    ['sqlite:///var/data/app.db', { kind: 'sqlite', file: '/var/data/app.db' }],
    ['sqlite:data/app.db', { kind: 'sqlite', file: 'data/app.db' }],
    ['mysql://reader:pw@db:3306/shop', { kind: 'mysql', url: 'mysql://reader:pw@db:3306/shop' }],
    ['mariadb://reader:pw@db/shop', { kind: 'mysql', url: 'mysql://reader:pw@db/shop' }],
  ])('should parse %s', (url, target) => {
    expect(parseQueryTarget(url)).toEqual(target);
  });

  it('should refuse other URLs', () => {
    expect(() => parseQueryTarget('postgres://x')).toThrow('supports mysql://, mariadb:// and sqlite: URLs only');
    expect(() => parseQueryTarget('sqlite::memory:')).toThrow('needs a SQLite file path');
  });
});
