import { decideName, type NameContext } from './decide-name';

const context = (overrides: Partial<NameContext> = {}): NameContext => ({
  taken: { own: new Map([['lookup', 'own-id']]), public: new Map([['shared', 'public-id']]) },
  inBundle: new Set(),
  allNames: new Set(['lookup', 'lookup_2']),
  policy: 'skip',
  kind: 'tool',
  maxLength: 64,
  ...overrides,
});

describe(decideName.name, () => {
  it('should create a name nobody has, and let a private item take a public name', () => {
    expect(decideName('fresh', false, context())).toMatchObject({ status: 'created', name: 'fresh', targetId: null });
    expect(decideName('shared', false, context())).toMatchObject({ status: 'created', name: 'shared' });
  });

  it('should skip for the existing item, replace only the caller’s own, and rename past every taken name', () => {
    expect(decideName('lookup', false, context())).toMatchObject({ status: 'skipped', targetId: 'own-id' });
    expect(decideName('shared', true, context())).toMatchObject({ status: 'skipped', targetId: 'public-id' });
    expect(decideName('lookup', false, context({ policy: 'replace' }))).toMatchObject({
      status: 'replaced',
      targetId: 'own-id',
    });
    expect(decideName('shared', true, context({ policy: 'replace' }))).toMatchObject({ status: 'failed' });
    expect(decideName('lookup', false, context({ policy: 'rename' }))).toMatchObject({
      status: 'renamed',
      name: 'lookup_3',
      originalName: 'lookup',
    });
  });

  it('should keep a renamed name within the length limit', () => {
    const long = 'x'.repeat(64);
    const taken = { own: new Map([[long, 'id']]), public: new Map<string, string>() };
    expect(decideName(long, false, context({ policy: 'rename', taken })).name).toBe(`${'x'.repeat(62)}_2`);
  });

  it('should fail a second item of the same name unless renaming', () => {
    const inBundle = new Set(['dup']);
    expect(decideName('dup', false, context({ inBundle }))).toMatchObject({ status: 'failed' });
    expect(decideName('dup', false, context({ inBundle, policy: 'rename' }))).toMatchObject({ name: 'dup_2' });
  });
});
