import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['build/', 'node_modules/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-control-regex': 'off',
    },
  },
  // The examples are plain JavaScript for Node, run as they are.
  { files: ['examples/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
