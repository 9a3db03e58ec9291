import type { TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { sqliteTestingModule } from '../../test/support/sqlite-testing-module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';

const ADMIN_KEY = 'tf_test_admin_key_0123456789abcdef';

describe(ApiKeysService.name, () => {
  let moduleRef: TestingModule;
  let sut: ApiKeysService;

  beforeEach(async () => {
    moduleRef = await sqliteTestingModule([TypeOrmModule.forFeature([ApiKeyEntity])], {
      env: { ADMIN_API_KEY: ADMIN_KEY },
      providers: [ApiKeysService],
    });
    sut = moduleRef.get(ApiKeysService);
  });

  afterEach(() => moduleRef.close());

  it('should register ADMIN_API_KEY as an admin key at start', async () => {
    await expect(sut.authenticate(ADMIN_KEY)).resolves.toMatchObject({ role: 'admin' });
  });

  it('should authenticate a created key as its user and role, and show only its prefix afterwards', async () => {
    const created = await sut.create({ name: 'ci', role: 'user', user_id: 'alice' });

    await expect(sut.authenticate(created.key)).resolves.toEqual({ userId: 'alice', role: 'user', keyId: created.id });
    await expect(sut.authenticate(`${created.key}x`)).resolves.toBeNull();
    const listed = await sut.list({ page: 1, page_size: 50 });
    const shown = listed.items.find((item) => item.id === created.id);
    expect(shown).toMatchObject({ name: 'ci', role: 'user', key_prefix: created.key.slice(0, 10), revoked_at: null });
    expect(shown).not.toHaveProperty('key');
  });

  it('should stop authenticating a revoked key', async () => {
    const admin = await sut.create({ name: 'ops', role: 'admin' });
    const revoked = await sut.create({ name: 'old', role: 'user' });

    await sut.revoke(revoked.id, { userId: admin.user_id, role: 'admin', keyId: admin.id });

    await expect(sut.authenticate(revoked.key)).resolves.toBeNull();
  });

  it('should refuse a key revoking itself, and report an unknown key as not found', async () => {
    const admin = await sut.create({ name: 'ops', role: 'admin' });
    const self = { userId: admin.user_id, role: 'admin' as const, keyId: admin.id };

    await expect(sut.revoke(admin.id, self)).rejects.toMatchObject({ code: 'conflict' });
    await expect(sut.revoke('00000000-0000-4000-8000-000000000000', self)).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(sut.authenticate(admin.key)).resolves.toMatchObject({ keyId: admin.id });
  });
});
