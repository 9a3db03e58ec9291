import type { TestingModule } from '@nestjs/testing';
import { getRepositoryToken, TypeOrmModule } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { adminPrincipal, userPrincipal } from '../../test/factories/run.factory';
import { newTool } from '../../test/factories/tool.factory';
import { permissiveImplementations } from '../../test/factories/tool-implementations.factory';
import { sqliteTestingModule } from '../../test/support/sqlite-testing-module';
import { providedPort } from '../common/port';
import { AuditModule } from '../audit/audit.module';
import { TOOL_DEPENDANTS, type ToolDependants } from './tool-dependants';
import { TOOL_IMPLEMENTATIONS } from './tool-implementations';
import { TOOL_VERSION_LISTENER, type ToolVersionChange, type ToolVersionListener } from './tool-version-listener';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { ToolFieldsService } from './tool-fields.service';
import { ToolVersionsService } from './tool-versions.service';
import { ToolsService } from './tools.service';

const owner = userPrincipal('owner');
const stranger = userPrincipal('stranger');

const implementations = permissiveImplementations();

/** No stored workflow uses any tool here. */
const noDependants: ToolDependants = {
  workflowsUsing: () => Promise.resolve([]),
  disableWorkflows: () => Promise.resolve(),
};

describe(ToolsService.name, () => {
  let moduleRef: TestingModule;
  let sut: ToolsService;
  let versions: ToolVersionsService;
  let tools: Repository<ToolEntity>;
  let changes: ToolVersionChange[][];
  let listener: ToolVersionListener;

  beforeEach(async () => {
    changes = [];
    listener = {
      toolsChanged: (told) => {
        changes.push([...told]);
        return Promise.resolve();
      },
    };
    moduleRef = await sqliteTestingModule([TypeOrmModule.forFeature([ToolEntity, ToolVersionEntity]), AuditModule], {
      providers: [
        ToolsService,
        ToolFieldsService,
        ToolVersionsService,
        { provide: TOOL_IMPLEMENTATIONS, useValue: implementations },
        {
          provide: TOOL_VERSION_LISTENER,
          useValue: providedPort(TOOL_VERSION_LISTENER, {
            toolsChanged: (told: readonly ToolVersionChange[]) => listener.toolsChanged(told),
          }),
        },
        { provide: TOOL_DEPENDANTS, useValue: providedPort(TOOL_DEPENDANTS, noDependants) },
      ],
    });
    sut = moduleRef.get(ToolsService);
    versions = moduleRef.get(ToolVersionsService);
    tools = moduleRef.get(getRepositoryToken(ToolEntity));
  }, 60_000);

  afterEach(() => moduleRef.close());

  describe('requires_approval', () => {
    it('should default to true for a dangerous tool and to false for the other effects', async () => {
      const dangerous = await sut.create(newTool({ name: 'wipe', effect: 'dangerous' }), owner);
      const mutating = await sut.create(newTool({ name: 'write', effect: 'mutating' }), owner);

      expect(dangerous.requires_approval).toBe(true);
      expect(mutating.requires_approval).toBe(false);
    });

    it('should keep an explicit choice and store it on the version too', async () => {
      const created = await sut.create(newTool({ name: 'wipe', effect: 'dangerous', requires_approval: false }), owner);
      await sut.update(created.id, { requires_approval: true }, owner);

      expect(created.requires_approval).toBe(false);
      expect((await versions.getVersion(created.id, 1, owner)).requires_approval).toBe(false);
      expect((await versions.getVersion(created.id, 2, owner)).requires_approval).toBe(true);
      expect((await sut.findVisible(created.id, owner)).requiresApproval).toBe(true);
    });

    it('should keep the stored value on a PATCH of other fields and take the new effect default when only the effect changes', async () => {
      const created = await sut.create(newTool({ name: 'send', effect: 'mutating', requires_approval: true }), owner);

      const renamed = await sut.update(created.id, { description: 'Sends' }, owner);
      const safer = await sut.update(created.id, { effect: 'read_only' }, owner);
      const dangerous = await sut.update(created.id, { effect: 'dangerous' }, owner);

      expect(renamed.requires_approval).toBe(true);
      expect(safer.requires_approval).toBe(false);
      expect(dangerous.requires_approval).toBe(true);
    });
  });

  describe('create', () => {
    it('should store a tool at version 1, owned by the caller, private and enabled by default', async () => {
      const created = await sut.create(newTool({ name: 'adder' }), owner);

      expect(created).toMatchObject({
        name: 'adder',
        user_id: 'owner',
        version: 1,
        is_public: false,
        enabled: true,
        implementation_type: 'code',
        warnings: [],
      });
      expect(await sut.get('adder', owner)).toMatchObject({ id: created.id, version: 1 });
    });

    it('should refuse a second tool of the same owner with the same name with a conflict on name', async () => {
      await sut.create(newTool({ name: 'adder' }), owner);

      await expect(sut.create(newTool({ name: 'adder' }), owner)).rejects.toMatchObject({
        code: 'conflict',
        message: 'You already have a tool named "adder"',
      });
    });

    it.each(['read_tool_result', 'search_tools'])(
      'should refuse the reserved name %s on the name field',
      async (name) => {
        await expect(sut.create(newTool({ name }), owner)).rejects.toMatchObject({
          code: 'validation_failed',
          problems: [{ field: 'name', message: `"${name}" is reserved: LLM nodes add a tool of that name` }],
        });
      },
    );

    it('should let two users have private tools of the same name, each getting its own by name', async () => {
      const mine = await sut.create(newTool({ name: 'adder' }), owner);
      const theirs = await sut.create(newTool({ name: 'adder' }), stranger);

      expect(mine.id).not.toBe(theirs.id);
      await expect(sut.get('adder', owner)).resolves.toMatchObject({ id: mine.id });
      await expect(sut.get('adder', stranger)).resolves.toMatchObject({ id: theirs.id });
    });

    it('should keep public names unique among public tools, while a private tool may share one', async () => {
      await sut.create(newTool({ name: 'shared', is_public: true }), adminPrincipal());
      const otherAdmin = { ...adminPrincipal(), userId: 'admin-2' };
      await sut.create(newTool({ name: 'shared_too', is_public: true }), otherAdmin);

      await expect(sut.update('shared_too', { name: 'shared' }, otherAdmin)).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringContaining('public ones') as unknown,
      });
      await expect(sut.create(newTool({ name: 'shared' }), owner)).resolves.toMatchObject({ is_public: false });
    });

    it("should resolve a name to the caller's own tool first, then to the public one", async () => {
      const shared = await sut.create(newTool({ name: 'search', is_public: true }), adminPrincipal());
      const own = await sut.create(newTool({ name: 'search' }), owner);

      await expect(sut.get('search', owner)).resolves.toMatchObject({ id: own.id });
      await expect(sut.get('search', stranger)).resolves.toMatchObject({ id: shared.id });
      expect((await sut.findUsableByNames(['search'], owner)).map((tool) => tool.id)).toEqual([own.id]);
      expect((await sut.findUsableByNames(['search'], stranger)).map((tool) => tool.id)).toEqual([shared.id]);
    });
  });

  describe('versions', () => {
    it('should keep every saved version immutable and roll back by making an old one the next version', async () => {
      const created = await sut.create(newTool({ name: 'adder', description: 'Adds' }), owner);
      await sut.update(created.id, { description: 'Adds fast', effect: 'idempotent' }, owner);

      expect(
        (await versions.listVersions('adder', owner)).map((version) => [version.version, version.description]),
      ).toEqual([
        [2, 'Adds fast'],
        [1, 'Adds'],
      ]);
      await expect(versions.getVersion('adder', 1, owner)).resolves.toMatchObject({
        tool_id: created.id,
        version: 1,
        description: 'Adds',
        effect: 'read_only',
      });

      const rolledBack = await sut.rollback('adder', 1, owner);

      expect(rolledBack).toMatchObject({ version: 3, description: 'Adds', effect: 'read_only' });
      await expect(versions.getVersion('adder', 2, owner)).resolves.toMatchObject({ description: 'Adds fast' });
      await expect(versions.getVersion('adder', 9, owner)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('should read the versions a run pinned as they were saved, leaving out a tool deleted since', async () => {
      const adder = await sut.create(newTool({ name: 'adder', description: 'Adds' }), owner);
      await sut.update(adder.id, { effect: 'dangerous', category: 'other', enabled: false }, owner);
      const gone = await sut.create(newTool({ name: 'gone' }), owner);
      await sut.remove(gone.id, owner);

      const pinned = await versions.findPinned([
        { id: adder.id, version: 1 },
        { id: gone.id, version: 1 },
      ]);

      expect(pinned).toEqual([
        {
          category: 'math',
          tool: expect.objectContaining({ id: adder.id, version: 1, effect: 'read_only', userId: 'owner' }) as unknown,
        },
      ]);
    });
  });

  describe('update', () => {
    it('should merge the given fields over the stored ones and bump the version', async () => {
      const created = await sut.create(newTool({ name: 'adder', description: 'Adds' }), owner);

      const updated = await sut.update(created.id, { description: 'Adds two numbers, fast' }, owner);

      expect(updated).toMatchObject({ name: 'adder', description: 'Adds two numbers, fast', version: 2 });
      expect(await tools.findOneByOrFail({ id: created.id })).toMatchObject({ version: 2 });
    });

    it('should answer a conflict to the second of two updates made from the same version', async () => {
      const created = await sut.create(newTool({ name: 'adder' }), owner);
      const transaction = tools.manager.transaction.bind(tools.manager) as (...args: unknown[]) => Promise<unknown>;
      // The other writer commits between this update's read (version 1) and its write.
      jest.spyOn(tools.manager, 'transaction').mockImplementationOnce(async (...args: unknown[]) => {
        await sut.update(created.id, { description: 'first writer' }, owner);
        return transaction(...args);
      });

      await expect(sut.update(created.id, { description: 'second writer' }, owner)).rejects.toMatchObject({
        code: 'conflict',
        message: 'Tool "adder" was changed by another request; read it again and retry',
      });
      expect(await sut.get(created.id, owner)).toMatchObject({ description: 'first writer', version: 2 });
    });

    it('should refuse an If-Match version that is not the current one', async () => {
      const created = await sut.create(newTool({ name: 'adder' }), owner);
      await sut.update(created.id, { description: 'first' }, owner, ['1']);

      await expect(sut.update(created.id, { description: 'second' }, owner, ['1'])).rejects.toMatchObject({
        code: 'precondition_failed',
      });
      expect(await sut.get(created.id, owner)).toMatchObject({ description: 'first', version: 2 });
    });

    it('should let only the owner or an admin change a public tool', async () => {
      const created = await sut.create(newTool({ name: 'adder', is_public: true }), adminPrincipal());

      await expect(sut.update(created.id, { description: 'mine now' }, stranger)).rejects.toMatchObject({
        code: 'forbidden',
      });
      await expect(sut.update(created.id, { description: 'by admin' }, adminPrincipal())).resolves.toMatchObject({
        version: 2,
      });
    });
  });

  describe('visibility', () => {
    it('should show a private tool to its owner and admins only, as not found to others', async () => {
      const created = await sut.create(newTool({ name: 'secret_adder' }), owner);

      await expect(sut.get(created.id, owner)).resolves.toMatchObject({ name: 'secret_adder' });
      await expect(sut.get(created.id, adminPrincipal())).resolves.toMatchObject({ name: 'secret_adder' });
      await expect(sut.get(created.id, stranger)).rejects.toMatchObject({ code: 'not_found' });
      await expect(sut.remove(created.id, stranger)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('should refuse a user making a tool public', async () => {
      await expect(sut.create(newTool({ name: 'adder', is_public: true }), owner)).rejects.toMatchObject({
        code: 'forbidden',
        problems: [{ field: 'is_public', message: 'only admins make tools public' }],
      });
    });

    it('should show a public tool to everyone', async () => {
      const created = await sut.create(newTool({ name: 'public_adder', is_public: true }), adminPrincipal());

      await expect(sut.get(created.id, stranger)).resolves.toMatchObject({ name: 'public_adder', is_public: true });
    });

    it('should find by name only the tools the caller may see, disabled ones included for the registry to report', async () => {
      await sut.create(newTool({ name: 'mine' }), owner);
      await sut.create(newTool({ name: 'theirs' }), stranger);
      await sut.create(newTool({ name: 'shared', is_public: true }), adminPrincipal());
      await sut.create(newTool({ name: 'off', enabled: false }), owner);

      const usable = await sut.findUsableByNames(['mine', 'theirs', 'shared', 'off'], owner);

      expect(usable.map((tool) => tool.name).sort()).toEqual(['mine', 'off', 'shared']);
    });
  });

  describe('version listener', () => {
    it('should tell the new version after a write and a null version after a delete, one or many', async () => {
      const adder = await sut.create(newTool({ name: 'adder' }), owner);
      const first = await sut.create(newTool({ name: 'first' }), owner);
      const second = await sut.create(newTool({ name: 'second' }), owner);

      await sut.update(adder.id, { description: 'Adds fast' }, owner);
      await sut.replace(adder.id, newTool({ name: 'adder', description: 'Adds' }), owner);
      await sut.remove(adder.id, owner);
      await sut.removeMany([first.id, second.id], owner, 'Tools');

      expect(changes).toEqual([
        [{ id: adder.id, version: 2 }],
        [{ id: adder.id, version: 3 }],
        [{ id: adder.id, version: null }],
        expect.arrayContaining([
          { id: first.id, version: null },
          { id: second.id, version: null },
        ]),
      ]);
      expect(changes).toHaveLength(4);
    });

    it('should keep a write and a delete that succeeded when the listener fails', async () => {
      listener = { toolsChanged: () => Promise.reject(new Error('database gone')) };
      const adder = await sut.create(newTool({ name: 'adder' }), owner);

      await expect(sut.update(adder.id, { description: 'Adds fast' }, owner)).resolves.toMatchObject({ version: 2 });
      await expect(sut.remove(adder.id, owner)).resolves.toBeUndefined();
      expect(await tools.countBy({ id: adder.id })).toBe(0);
    });

    it('should tell nothing when a write was refused', async () => {
      const adder = await sut.create(newTool({ name: 'adder' }), owner);

      await expect(sut.update(adder.id, { description: 'mine now' }, stranger)).rejects.toBeDefined();
      expect(changes).toEqual([]);
    });
  });
});
