// Lint: typescript-eslint's type-aware rules over every package, example and test (run by `npm test`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.packs/**', 'packages/celeriac/test/e2e/fixtures/**', 'bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program for everything: the root tsconfig covers every package, test and example (the project
      // service would open each package's own tsconfig as well, and took longer).
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Lines stay within prettier's print width; prettier does not wrap strings and comments, so this does.
      'max-len': ['error', { code: 120, ignoreUrls: true }],
      // Async implementations of Promise-returning interfaces (memory broker, fakes) are intended:
      // they turn a throw into a rejection, which is what callers of the interface expect.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks a parameter or binding kept for its position or to omit a field.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Waits reject with an abort signal's reason or a connection's error as they are: those are `unknown`.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    // Tests, and the conformance suites that core ships for other packages' tests.
    files: ['packages/*/test/**/*.ts', 'packages/core/src/testing/**/*.ts'],
    rules: {
      // `expect(obj.method).toHaveBeenCalled()` on jest mocks is idiomatic and never calls the method unbound.
      '@typescript-eslint/unbound-method': 'off',
      // jest's asymmetric matchers (`expect.any`, `expect.objectContaining`) are typed `any` by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The bin shim is plain CommonJS run by Node.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The dashboard's page: ES modules run by the browser.
    files: ['packages/dashboard/ui/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'addEventListener',
          'clearTimeout',
          'document',
          'EventSource',
          'fetch',
          'location',
          'removeEventListener',
          'setTimeout',
          'URLSearchParams',
          'window',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
