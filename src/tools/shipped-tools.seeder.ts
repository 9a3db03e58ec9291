import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { isDuplicateKey } from '../common/owned-queries';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { TOOL_IMPLEMENTATIONS, type ToolImplementations } from './tool-implementations';
import { asRow, requiresApprovalByDefault, snapshotRow } from './tool-rows';

/**
 * Seeds every tool the code ships (builtins) as a public one at start; refreshes a seed nobody has edited
 * when the code's schema changes. Several processes starting at once insert each seed once.
 */
@Injectable()
export class ShippedToolsSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(ShippedToolsSeeder.name);

  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @InjectRepository(ToolVersionEntity) private readonly versions: Repository<ToolVersionEntity>,
    @Inject(TOOL_IMPLEMENTATIONS) private readonly implementations: ToolImplementations,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const shipped of this.implementations.shippedTools()) {
      const schema = shipped.functionSchema;
      const existing = await this.tools.findOneBy({ name: shipped.name, userId: IsNull() });
      const now = new Date();
      if (!existing) {
        try {
          const id = randomUUID();
          await this.tools.insert(
            asRow({
              id,
              name: shipped.name,
              description: shipped.description,
              category: shipped.category,
              functionSchema: schema,
              implementationType: shipped.implementationType,
              implementationConfig: {},
              isPublic: true,
              publicName: shipped.name,
              enabled: true,
              effect: shipped.effect,
              requiresApproval: requiresApprovalByDefault(shipped.effect),
              userId: null,
              useCount: 0,
              version: 1,
              createdAt: now,
              updatedAt: now,
            }),
          );
          await this.versions.insert(
            snapshotRow(
              id,
              1,
              {
                ...shipped,
                category: shipped.category,
                implementationConfig: {},
                requiresApproval: requiresApprovalByDefault(shipped.effect),
              },
              now,
            ),
          );
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      } else if (
        existing.implementationType === shipped.implementationType &&
        existing.userId === null &&
        existing.version === 1 &&
        JSON.stringify(existing.functionSchema) !== JSON.stringify(schema)
      ) {
        await this.tools.update(
          { id: existing.id, version: 1 },
          asRow({ functionSchema: schema, description: shipped.description, effect: shipped.effect, updatedAt: now }),
        );
        // Nobody has edited a seed at version 1: its one version follows the code it ships with.
        await this.versions.update({ toolId: existing.id, version: 1 }, {
          functionSchema: schema,
          description: shipped.description,
          effect: shipped.effect,
        } as QueryDeepPartialEntity<ToolVersionEntity>);
        this.logger.log(`Refreshed the schema of ${shipped.implementationType} tool ${shipped.name}`);
      }
    }
  }
}
