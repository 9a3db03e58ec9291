import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { countStatements } from '../../test/support/statement-counter';
import { sqliteTestingModule } from '../../test/support/sqlite-testing-module';
import { adminPrincipal } from '../../test/factories/run.factory';
import { AuditModule } from '../audit/audit.module';
import { ApiKeyEntity } from './api-key.entity';
import { API_KEY_CACHE_TTL_MS, ApiKeysService } from './api-keys.service';
import { providedPort } from '../common/port';
import { OWNER_LISTENER } from './owner-listener';

const ADMIN_KEY = 'tf_test_admin_key_0123456789abcdef';

describe(ApiKeysService.name, () => {
  let moduleRef: TestingModule;
  let sut: ApiKeysService;
  let removedOwners: string[];

  beforeEach(async () => {
    removedOwners = [];
    const ownerListener = { ownerRemoved: (userId: string) => Promise.resolve(void removedOwners.push(userId)) };
    moduleRef = await sqliteTestingModule([TypeOrmModule.forFeature([ApiKeyEntity]), AuditModule], {
      env: { ADMIN_API_KEY: ADMIN_KEY },
      providers: [ApiKeysService, { provide: OWNER_LISTENER, useValue: providedPort(OWNER_LISTENER, ownerListener) }],
    });
    sut = moduleRef.get(ApiKeysService);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await moduleRef.close();
  });

  it('should register ADMIN_API_KEY as an admin key at start', async () => {
    await expect(sut.authenticate(ADMIN_KEY)).resolves.toMatchObject({ role: 'admin' });
  });

  it('should start when another process registers ADMIN_API_KEY at the same moment', async () => {
    const keys = moduleRef.get<Repository<ApiKeyEntity>>(getRepositoryToken(ApiKeyEntity));
    await keys.clear();

    await expect(Promise.all([sut.onApplicationBootstrap(), sut.onApplicationBootstrap()])).resolves.toBeDefined();

    await expect(keys.count()).resolves.toBe(1);
    await expect(sut.authenticate(ADMIN_KEY)).resolves.toMatchObject({ role: 'admin' });
  });

  it('should authenticate a created key as its user and role, and show only its prefix afterwards', async () => {
    const created = await sut.create({ name: 'ci', role: 'user', user_id: 'alice' }, adminPrincipal());

    await expect(sut.authenticate(created.key)).resolves.toEqual({
      userId: 'alice',
      role: 'user',
      keyId: created.id,
      keyName: 'ci',
    });
    await expect(sut.authenticate(`${created.key}x`)).resolves.toBeNull();
    const listed = await sut.list({ page: 1, page_size: 50 });
    const shown = listed.items.find((item) => item.id === created.id);
    expect(shown).toMatchObject({ name: 'ci', role: 'user', key_prefix: created.key.slice(0, 10), revoked_at: null });
    expect(shown).not.toHaveProperty('key');
  });

  it('should stop authenticating a revoked key', async () => {
    const admin = await sut.create({ name: 'ops', role: 'admin' }, adminPrincipal());
    const revoked = await sut.create({ name: 'old', role: 'user' }, adminPrincipal());

    await sut.revoke(revoked.id, { userId: admin.user_id, role: 'admin', keyId: admin.id });

    await expect(sut.authenticate(revoked.key)).resolves.toBeNull();
  });

  it("should tell of a removed owner when the owner's last active key is revoked, not before", async () => {
    const admin = await sut.create({ name: 'ops', role: 'admin' }, adminPrincipal());
    const by = { userId: admin.user_id, role: 'admin' as const, keyId: admin.id };
    const first = await sut.create({ name: 'laptop', role: 'user', user_id: 'ana' }, adminPrincipal());
    const second = await sut.create({ name: 'ci', role: 'user', user_id: 'ana' }, adminPrincipal());

    await sut.revoke(first.id, by);
    const afterFirst = [...removedOwners];
    await sut.revoke(second.id, by);

    expect(afterFirst).toEqual([]);
    expect(removedOwners).toEqual(['ana']);
  });

  it('should refuse a key revoking itself, and report an unknown key as not found', async () => {
    const admin = await sut.create({ name: 'ops', role: 'admin' }, adminPrincipal());
    const self = { userId: admin.user_id, role: 'admin' as const, keyId: admin.id };

    await expect(sut.revoke(admin.id, self)).rejects.toMatchObject({ code: 'conflict' });
    await expect(sut.revoke('00000000-0000-4000-8000-000000000000', self)).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(sut.authenticate(admin.key)).resolves.toMatchObject({ keyId: admin.id });
  });

  it('should ask the database once for a key used again within the cache time', async () => {
    const created = await sut.create({ name: 'ci', role: 'user' }, adminPrincipal());
    const counter = countStatements(moduleRef.get(DataSource));

    await sut.authenticate(created.key);
    await sut.authenticate(created.key);
    await sut.authenticate(created.key);

    expect(counter.count('SELECT')).toBe(1);
    counter.stop();
  });

  it('should ask the database again for a key that was unknown, so a key created elsewhere works at once', async () => {
    const counter = countStatements(moduleRef.get(DataSource));

    await expect(sut.authenticate('tf_unknown')).resolves.toBeNull();
    await expect(sut.authenticate('tf_unknown')).resolves.toBeNull();

    expect(counter.count('SELECT')).toBe(2);
    counter.stop();
  });

  it('should stop authenticating a cached key as soon as it is revoked in this process', async () => {
    const admin = await sut.create({ name: 'ops', role: 'admin' }, adminPrincipal());
    const victim = await sut.create({ name: 'old', role: 'user' }, adminPrincipal());
    await expect(sut.authenticate(victim.key)).resolves.toMatchObject({ keyId: victim.id });

    await sut.revoke(victim.id, { userId: admin.user_id, role: 'admin', keyId: admin.id });

    await expect(sut.authenticate(victim.key)).resolves.toBeNull();
  });

  it('should stop authenticating a key revoked by another process once the cache time has passed', async () => {
    const victim = await sut.create({ name: 'old', role: 'user' }, adminPrincipal());
    const start = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(start);
    await expect(sut.authenticate(victim.key)).resolves.toMatchObject({ keyId: victim.id });
    const keys = moduleRef.get<Repository<ApiKeyEntity>>(getRepositoryToken(ApiKeyEntity));
    await keys.update({ id: victim.id }, { revokedAt: new Date(start) });

    await expect(sut.authenticate(victim.key)).resolves.toMatchObject({ keyId: victim.id });
    now.mockReturnValue(start + API_KEY_CACHE_TTL_MS + 1);
    await expect(sut.authenticate(victim.key)).resolves.toBeNull();
  });
});
