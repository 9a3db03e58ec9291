import { Module } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { WorkflowModule } from '../workflow/workflow.module';
import { BundleExportService } from './bundle-export.service';
import { BundleImportService } from './bundle-import.service';
import { BundlesController } from './bundles.controller';

/** Export and import of tools and workflows as one JSON bundle. */
@Module({
  imports: [RegistryModule, WorkflowModule],
  controllers: [BundlesController],
  providers: [BundleExportService, BundleImportService],
})
export class BundlesModule {}
