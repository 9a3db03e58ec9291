import { type DynamicModule, type Type, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ToolEntity } from './tool.entity';
import { ToolVersionEntity } from './tool-version.entity';
import { ToolsController } from './tools.controller';
import { ShippedToolsSeeder } from './shipped-tools.seeder';
import { ToolFieldsService } from './tool-fields.service';
import { ToolImportService } from './tool-import.service';
import { ToolVersionsService } from './tool-versions.service';
import { ToolsService } from './tools.service';

@Module({})
export class ToolsModule {
  /**
   * Stored tools over the implementation types of `implementations`: a module (above this one) that
   * exports TOOL_IMPLEMENTATIONS. Register once; each call is a module instance of its own.
   */
  static register(implementations: Type): DynamicModule {
    return {
      module: ToolsModule,
      imports: [TypeOrmModule.forFeature([ToolEntity, ToolVersionEntity]), implementations],
      controllers: [ToolsController],
      providers: [ToolsService, ToolFieldsService, ToolVersionsService, ToolImportService, ShippedToolsSeeder],
      exports: [ToolsService, ToolVersionsService, ToolImportService],
    };
  }
}
