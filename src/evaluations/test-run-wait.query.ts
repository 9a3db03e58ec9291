import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';

/**
 * `?wait` of POST …/test-runs. Unlike a run's, it defaults to true: the endpoint answered with the ended test run
 * before test runs could be followed, and clients written then keep working; `wait=false` answers 202 at once.
 */
export class TestRunWaitQuery {
  @ApiPropertyOptional({
    type: Boolean,
    default: true,
    description: 'true (default): answer 201 once every case ended; false: answer 202 at once and follow Location',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => {
    if (value === 'true' || value === '1' || value === true) return true;
    if (value === 'false' || value === '0' || value === false) return false;
    return value;
  })
  @IsBoolean({ message: 'wait must be true or false' })
  wait?: boolean;
}
