import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Min } from 'class-validator';
import { WEATHER_EXAMPLE } from './workflow-example';

/** One saved version of a workflow, without its definition (GET /workflows/{id}/versions). */
export class WorkflowVersionSummary {
  @ApiProperty({ example: 2 }) version!: number;
  @ApiProperty({ example: 'weather' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'The user whose save made this version' }) created_by!: string;
  @ApiProperty({ example: '2026-11-30T08:00:00.000Z' }) created_at!: string;
}

/** One immutable version of a workflow, as it was saved. */
export class WorkflowVersionResponse extends WorkflowVersionSummary {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) workflow_id!: string;
  @ApiProperty({ example: WEATHER_EXAMPLE }) definition!: Record<string, unknown>;
}

export class RollbackWorkflowDto {
  @ApiProperty({ example: 1, description: 'The version whose definition becomes the next version' })
  @IsInt({ message: 'version must be an integer' })
  @Min(1)
  version!: number;
}
