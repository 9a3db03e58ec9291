import { Body, Controller, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiProblemResponses } from '../../common/http/api-problem-responses';
import { ApiResource } from '../../common/http/api-resource';
import { ImportOpenApiDto, OpenApiImportResponse } from './openapi-import.dto';
import { OpenApiImportService } from './openapi-import.service';

@ApiResource('tools')
@Controller('tools/import')
export class OpenApiImportController {
  constructor(private readonly importer: OpenApiImportService) {}

  @Post('openapi')
  @ApiOperation({
    operationId: 'importOpenApi',
    summary: 'Create one http tool per operation of an OpenAPI 3.0/3.1 or Swagger 2.0 document',
  })
  @ApiCreatedResponse({ type: OpenApiImportResponse })
  @ApiProblemResponses(400, 413)
  import(@Body() body: ImportOpenApiDto, @CurrentPrincipal() principal: Principal): Promise<OpenApiImportResponse> {
    return this.importer.import(body, principal);
  }
}
