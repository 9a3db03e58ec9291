import { type DynamicModule, Inject, Module, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import { type Port, portProvider, requirePorts } from '../common/port';
import { TOOL_DEPENDANTS, type ToolDependants } from './tool-dependants';
import { TOOL_VERSION_LISTENER, type ToolVersionListener } from './tool-version-listener';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { ToolsController } from './tools.controller';
import { ShippedToolsSeeder } from './shipped-tools.seeder';
import { ToolFieldsService } from './tool-fields.service';
import { ToolImportService } from './tool-import.service';
import { ToolVersionsService } from './tool-versions.service';
import { ToolsService } from './tools.service';

@Module({})
export class ToolsModule implements OnApplicationBootstrap {
  constructor(
    @Inject(TOOL_DEPENDANTS) private readonly dependants: Port<ToolDependants>,
    @Inject(TOOL_VERSION_LISTENER) private readonly versionListener: Port<ToolVersionListener>,
  ) {}

  /** Refuses to start when the module that answers "who uses this tool" (workflow/) has not registered. */
  onApplicationBootstrap(): void {
    requirePorts(this.dependants, this.versionListener);
  }

  /**
   * Stored tools over the implementation types of `implementations`: a module (above this one) that
   * exports TOOL_IMPLEMENTATIONS. Register once; each call is a module instance of its own.
   */
  static register(implementations: Type): DynamicModule {
    return {
      module: ToolsModule,
      imports: [TypeOrmModule.forFeature([ToolEntity, ToolVersionEntity]), AuditModule, implementations],
      controllers: [ToolsController],
      providers: [
        portProvider(TOOL_DEPENDANTS),
        portProvider(TOOL_VERSION_LISTENER),
        ToolsService,
        ToolFieldsService,
        ToolVersionsService,
        ToolImportService,
        ShippedToolsSeeder,
      ],
      exports: [ToolsService, ToolVersionsService, ToolImportService, TOOL_DEPENDANTS, TOOL_VERSION_LISTENER],
    };
  }
}
