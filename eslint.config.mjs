import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import boundaries from 'eslint-plugin-boundaries';
import globals from 'globals';
import pluginVue from 'eslint-plugin-vue';
import tseslint from 'typescript-eslint';

const BASE = ['shared', 'config', 'common'];
/**
 * Which modules each module may import (besides itself); every arrow is used by some import, and docs/architecture.md
 * draws them (src/architecture.spec.ts checks both, and that no two files import each other in a circle).
 */
const MODULE_ARROWS = {
  shared: [],
  config: [],
  common: ['shared'],
  'json-schema': BASE,
  outbound: BASE,
  llm: BASE,
  agent: [...BASE, 'llm'],
  'call-logs': BASE,
  audit: BASE,
  tools: [...BASE, 'audit', 'json-schema'],
  executors: [...BASE, 'tools', 'outbound', 'call-logs', 'json-schema', 'llm'],
  // OpenAPI import lives beside the tools it creates, and writes the HTTP executor's config.
  'tools/openapi-import': [...BASE, 'tools', 'executors', 'outbound', 'json-schema'],
  registry: [...BASE, 'tools', 'tools/openapi-import', 'executors', 'call-logs'],
  runs: [...BASE, 'audit', 'call-logs', 'tools', 'json-schema', 'llm'],
  workflow: [...BASE, 'audit', 'agent', 'runs', 'registry', 'executors', 'call-logs', 'tools', 'json-schema', 'llm'],
  'api-keys': [...BASE, 'audit'],
  health: BASE,
  telemetry: [...BASE, 'runs', 'executors', 'call-logs', 'llm'],
  mcp: [...BASE, 'audit', 'registry', 'executors', 'tools', 'outbound', 'json-schema'],
  bundles: [...BASE, 'workflow', 'registry', 'tools'],
  quotas: [...BASE, 'audit', 'runs', 'call-logs', 'tools', 'registry', 'llm'],
  evaluations: [...BASE, 'audit', 'workflow', 'runs', 'json-schema', 'llm'],
  cli: BASE,
  openapi: [...BASE, 'workflow', 'runs', 'executors'],
  root: [
    'shared',
    'config',
    'common',
    'json-schema',
    'outbound',
    'llm',
    'agent',
    'call-logs',
    'audit',
    'tools',
    'executors',
    'registry',
    'runs',
    'workflow',
    'api-keys',
    'health',
    'telemetry',
    'openapi',
    'mcp',
    'bundles',
    'evaluations',
    'quotas',
    'cli',
    'migrations',
  ],
};
const MODULES = Object.keys(MODULE_ARROWS).filter((type) => type !== 'root');
/** What a module's specs may import besides its arrows (none today: each spec stays inside its module's arrows). */
const SPEC_ARROWS = {};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'bin/**',
      'node_modules/**',
      'coverage/**',
      'data/**',
      '*.js',
      '*.mjs',
      'test/*.js',
      'console/src/api/generated/**',
      'console/*.mts',
      // The Python sandbox's child: plain CommonJS started without a transpiler (see python-sandbox.ts).
      'runtime/*.cjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      'no-console': 'error',
    },
  },
  {
    // Every ajv instance comes from createAjv (RE2 patterns): a native-RegExp ajv lets a stored pattern stall the event loop.
    files: ['src/**/*.ts'],
    ignores: ['src/json-schema/**', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['ajv', 'ajv/*', 'ajv-formats', 'ajv-formats/*'],
              allowTypeImports: true,
              message: 'Build validators with createAjv from src/json-schema (RE2 patterns).',
            },
          ],
        },
      ],
    },
  },
  {
    // Module arrows (docs/architecture.md): a module imports only the modules below it; nothing points back up.
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: 'tsconfig.json' }, node: { extensions: ['.ts', '.js', '.json'] } },
      'boundaries/include': ['src/**/*', 'test/**/*', 'migrations/**/*', 'examples/**/*'],
      'boundaries/elements': [
        // A nested module (tools/openapi-import) is listed before the module it sits in, so it matches first.
        ...[...MODULES]
          .sort((a, b) => b.split('/').length - a.split('/').length)
          .map((type) => ({ type, pattern: `src/${type}`, mode: 'folder' })),
        { type: 'root', pattern: 'src/*.ts', mode: 'file' },
        { type: 'migrations', pattern: 'migrations', mode: 'folder' },
        { type: 'test', pattern: 'test', mode: 'folder' },
        { type: 'examples', pattern: 'examples', mode: 'folder' },
      ],
    },
    rules: {
      'boundaries/element-types': [
        'error',
        {
          default: 'disallow',
          message: '${file.type} must not import ${dependency.type}: modules depend one way (docs/architecture.md)',
          rules: Object.entries(MODULE_ARROWS).map(([from, allow]) => ({ from, allow: [from, ...allow] })),
        },
      ],
    },
  },
  {
    // Specs may also use the test support code (scripted model servers, factories).
    files: ['src/**/*.spec.ts'],
    rules: {
      'boundaries/element-types': [
        'error',
        {
          default: 'disallow',
          rules: Object.entries(MODULE_ARROWS).map(([from, allow]) => ({
            from,
            allow: [from, 'test', ...allow, ...(SPEC_ARROWS[from] ?? [])],
          })),
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-console': 'off',
    },
  },
  {
    // The console (Vue, browser): vue-tsc type-checks it (npm run typecheck), so its lint is the untyped set.
    files: ['console/**/*.{ts,vue}'],
    extends: [...pluginVue.configs['flat/recommended'], tseslint.configs.disableTypeChecked, prettier],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] },
    },
    rules: {
      'vue/multi-word-component-names': 'off',
    },
  },
);
