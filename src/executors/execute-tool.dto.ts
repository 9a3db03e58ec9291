import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { ANY_JSON } from '../common/http/any-json';
import { RawJson } from '../common/http/raw-json';

export class ExecuteToolDto {
  @ApiProperty({
    description: 'The arguments, as an object or as the JSON string a model would send',
    oneOf: [{ type: 'object' }, { type: 'string' }],
    example: { city: 'Berlin' },
  })
  @IsDefined({ message: 'arguments is required (an object, or a JSON string)' })
  @RawJson()
  arguments!: unknown;
}

export class ArgumentErrorDto {
  @ApiProperty({ example: '/city', description: 'JSON pointer into the arguments' }) path!: string;
  @ApiProperty({ example: 'must be string' }) message!: string;
  @ApiProperty({ ...ANY_JSON, example: 42, description: 'The offending value (any JSON)' }) value!: unknown;
}

export class ExecuteToolResponse {
  @ApiProperty() success!: boolean;
  @ApiProperty({ ...ANY_JSON, description: 'The result, any JSON (structured when the tool returns JSON)' })
  data!: unknown;
  @ApiProperty({ nullable: true, type: String, description: 'What the model would be told on failure' })
  error!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    enum: ['invalid_arguments', 'not_found', 'timeout', 'execution_error', 'forbidden'],
  })
  error_kind!: string | null;
  @ApiProperty({
    example: { duration_ms: 12, status_code: 200, response_bytes: 512 },
    description: 'duration_ms always; status_code, response_bytes, repaired_arguments, logs where they apply',
  })
  metadata!: Record<string, unknown>;
  @ApiPropertyOptional({ type: [ArgumentErrorDto] }) errors?: ArgumentErrorDto[];
}
