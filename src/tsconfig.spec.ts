import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import * as ts from 'typescript';

const root = join(__dirname, '..');

/** What `class Dto { field!: string }` becomes when compiled with the given options. */
function ownKeysOfCompiledClass(compilerOptions: ts.CompilerOptions): string[] {
  const { outputText } = ts.transpileModule('export class Dto { field!: string; }', { compilerOptions });
  const module = { exports: {} as { Dto: new () => object } };
  runInNewContext(outputText, { module, exports: module.exports });
  return Object.keys(new module.exports.Dto());
}

describe('tsconfig.json', () => {
  it('should compile class fields the way the tests (swc) do, so npm start runs the code the tests ran', () => {
    const parsed = ts.parseJsonConfigFileContent(
      ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config,
      ts.sys,
      root,
    );
    const swc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8')) as {
      jsc: { transform: { useDefineForClassFields: boolean } };
    };

    expect(swc.jsc.transform.useDefineForClassFields).toBe(false);
    // A declared-only DTO field must not become an own `undefined` property: the validation pipe
    // puts raw JSON back only where class-transformer left no property.
    expect(ownKeysOfCompiledClass(parsed.options)).toEqual([]);
  });
});
