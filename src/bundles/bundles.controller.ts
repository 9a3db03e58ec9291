import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../common/auth/principal';
import { ApiProblemResponses } from '../common/http/api-problem-responses';
import { BundleExportService } from './bundle-export.service';
import { BundleImportService } from './bundle-import.service';
import { Bundle, ExportQuery, ImportQuery, ImportResult } from './bundle.dto';

@ApiTags('bundles')
@ApiBearerAuth()
@Controller()
export class BundlesController {
  constructor(
    private readonly exporter: BundleExportService,
    private readonly importer: BundleImportService,
  ) {}

  @Get('export')
  @ApiOperation({
    operationId: 'exportBundle',
    summary: 'Tools and workflows as one JSON bundle (secrets masked), for POST /import here or elsewhere',
  })
  @ApiOkResponse({ type: Bundle })
  @ApiProblemResponses(400, 404)
  export(@Query() query: ExportQuery, @CurrentPrincipal() principal: Principal): Promise<Bundle> {
    return this.exporter.export(query, principal);
  }

  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'importBundle',
    summary:
      'Load a bundle: every item checked like its create endpoint, name conflicts by on_conflict, all stored or nothing (400 lists the items that fail)',
  })
  @ApiBody({ type: Bundle })
  @ApiOkResponse({ type: ImportResult })
  @ApiProblemResponses(400, 409, 413)
  import(
    @Body() bundle: unknown,
    @Query() query: ImportQuery,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ImportResult> {
    return this.importer.import(bundle, query, principal);
  }
}
