// ESLint: typescript-eslint's recommended type-aware rules over every TypeScript file but the generated ones,
// plus the house rules: type-only imports marked as such, unused names only when prefixed with `_`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import externalReferences from './codegen/lint-rules/no-external-references.js';

export default tseslint.config(
  {
    ignores: ['src/generated/**', 'sdk/src/generated/**', 'sdk/dist/**', 'dist/**', '.data/**', 'tests/artifacts/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    plugins: { house: { rules: { 'no-external-references': externalReferences } } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'house/no-external-references': 'error',
      // Handlers and hooks implement async interfaces; an async function without await is not a mistake there.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests, the fuzzer and the benchmarks read JSON answers as `any` on purpose (raw HTTP, hostile bodies;
    // every answer is checked against openapi.yaml instead: tests/setup/contract-guard.ts); codegen and the
    // mocks walk the contract document itself, which is JSON of no static type.
    files: ['tests/**', 'bench/**', 'codegen/**', 'mocks/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
    },
  },
  // Small files per area (docs/architecture.md): no source file over 500 lines.
  { files: ['src/**/*.ts'], rules: { 'max-lines': ['error', { max: 500 }] } },
  { files: ['**/*.{js,mjs,cjs}'], ...tseslint.configs.disableTypeChecked },
  // CommonJS files (what jest loads with require(), such as its `runtime` module) import with require().
  { files: ['**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
