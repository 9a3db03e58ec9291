import { performance } from 'node:perf_hooks';
import { ArgumentValidator } from '../src/executors/arguments';

const PROPERTY_COUNT = 20;
const ITERATIONS = 50_000;
const COLD_COMPILES = 20;

function buildSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let index = 0; index < PROPERTY_COUNT; index++) {
    const kind = index % 4;
    properties[`field_${index}`] =
      kind === 0
        ? { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z0-9_]+$' }
        : kind === 1
          ? { type: 'integer', minimum: 0, maximum: 1000 }
          : kind === 2
            ? { type: 'string', enum: ['low', 'medium', 'high'] }
            : { type: 'array', items: { type: 'number' }, maxItems: 10 };
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

function buildArguments(valid: boolean): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (let index = 0; index < PROPERTY_COUNT; index++) {
    const kind = index % 4;
    value[`field_${index}`] =
      kind === 0
        ? valid
          ? 'abc_1'
          : 'ABC!'
        : kind === 1
          ? valid
            ? 42
            : -1
          : kind === 2
            ? valid
              ? 'high'
              : 'max'
            : valid
              ? [1, 2]
              : ['x'];
  }
  return value;
}

function perSecond(run: () => void): number {
  const start = performance.now();
  for (let iteration = 0; iteration < ITERATIONS; iteration++) run();
  return Math.round(ITERATIONS / ((performance.now() - start) / 1000));
}

/** Validations per second with a cached validator, and the cost of a first (cold) compile. */
export async function benchArgumentValidation(): Promise<Record<string, number>> {
  // Start from a fresh turn of the event loop so earlier benchmarks' pending work does not skew this one.
  await new Promise((resolve) => setImmediate(resolve));
  const schema = buildSchema();
  const valid = buildArguments(true);
  const invalid = buildArguments(false);
  const validator = new ArgumentValidator();
  validator.validate('bench@1', schema, valid);

  const compileStart = performance.now();
  for (let index = 0; index < COLD_COMPILES; index++) validator.validate(`cold@${index}`, buildSchema(), valid);
  const coldCompileMs = (performance.now() - compileStart) / COLD_COMPILES;

  return {
    valid_per_second: perSecond(() => validator.validate('bench@1', schema, valid)),
    invalid_per_second: perSecond(() => validator.validate('bench@1', schema, invalid)),
    cold_compile_ms: Math.round(coldCompileMs * 100) / 100,
  };
}

if (require.main === module) {
  void benchArgumentValidation().then((results) => {
    console.log(`argument validation (${PROPERTY_COUNT}-property schema)`);
    for (const [name, value] of Object.entries(results)) console.log(`  ${name}: ${value.toLocaleString('en-US')}`);
  });
}
