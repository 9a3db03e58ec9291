/** The tool's own parameters schema cannot be compiled: a fault of the tool, not of the model's call. */
export class ParametersSchemaError extends Error {
  constructor(
    readonly toolKey: string,
    reason: string,
  ) {
    super(`invalid parameters schema: ${reason}`);
    this.name = 'ParametersSchemaError';
  }
}
