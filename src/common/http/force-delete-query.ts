import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';

/** Query strings carry text: "true"/"false" become booleans, anything else stays for the validator to refuse. */
export const toBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

/** `?force=true` on a DELETE that others depend on. */
export class ForceDeleteQuery {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Delete even when others use it; the workflow tools that point at a deleted workflow are disabled',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'force must be true or false' })
  force?: boolean;
}
