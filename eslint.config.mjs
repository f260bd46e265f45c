// Lint: typescript-eslint's recommended rules on the sources and tests, the line limit, node: imports.
// Formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'src/common/protocol/generated/**',
      'var/**',
      'coverage/**',
      '.stryker-tmp/**',
      'reports/**'
    ]
  },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    rules: {
      // Prettier wraps code at 120; strings and URLs it cannot break are the only exceptions allowed.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(fs|path|os|net|crypto|child_process|worker_threads|util|url|buffer|events|stream|http|tls|zlib|module|v8|assert|readline|timers|dns)(/.*)?$',
              message: 'use the node: prefix'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['scripts/**/*.mjs', 'bin/**'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', require: 'readonly', __dirname: 'readonly' }
    }
  }
)
