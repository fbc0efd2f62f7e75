// Lint: type-aware typescript-eslint plus the monorepo's module boundaries (house style §10, §16).
// Formatting is prettier's job (`npm run format:check`); nothing here checks layout.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const root = dirname(fileURLToPath(import.meta.url));

/** Which part of the monorepo a path belongs to: `apps/<name>`, `libs/<name>`, `test`, `deploy` or undefined. */
function areaOf(absolutePath) {
  const parts = relative(root, absolutePath).split(sep);
  if ((parts[0] === 'apps' || parts[0] === 'libs') && parts.length > 2) return { kind: parts[0], name: parts[1] };
  if (parts[0] === 'test' || parts[0] === 'deploy') return { kind: parts[0], name: parts[0] };
  return undefined;
}

/** Specs, system tests and test support (`*.testing.ts` files and `testing/` folders, kept out of the build). */
const isTestFile = (file) =>
  /\.((e2e-)?spec|testing)\.ts$/.test(file) ||
  /[\\/]testing[\\/]/.test(relative(root, file)) ||
  areaOf(file)?.kind === 'test';

/**
 * Module boundaries, checked on every import, export-from and dynamic import:
 * - apps never import other apps (they talk over NATS contracts); libs never import apps;
 * - a library is imported through its `@ioa/<lib>` alias, never by a relative path into `libs/` or a deep path
 *   behind the alias; inside a library, its own files are imported relatively;
 * - `@ioa/contracts` depends on nothing of ours, so an external agent can install it alone;
 * - `@ioa/testing` is for tests only.
 */
const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep apps independent and libraries behind their @ioa/<lib> alias' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const home = areaOf(file);
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const report = (message) => context.report({ node, message });
      if (specifier.startsWith('@ioa/')) {
        const match = /^@ioa\/([a-z-]+)$/.exec(specifier);
        if (!match) return report(`Deep import "${specifier}": import the library's public entry "@ioa/<lib>".`);
        const library = match[1];
        if (home?.kind === 'libs' && home.name === library) {
          return report(`"${specifier}" imported from inside ${library}: use a relative path within the library.`);
        }
        if (home?.kind === 'libs' && home.name === 'contracts') {
          return report('@ioa/contracts depends on nothing of ours, so external agents can install it alone.');
        }
        if (library === 'testing' && !isTestFile(file) && home?.name !== 'testing') {
          return report('@ioa/testing is for tests only.');
        }
        return;
      }
      if (/^(apps|libs)\//.test(specifier)) {
        return report(
          `"${specifier}" is a path, not a package: use "@ioa/<lib>" for libraries; apps are never imported.`,
        );
      }
      if (!specifier.startsWith('.')) return;
      const target = areaOf(resolve(dirname(file), specifier));
      if (!target || (home && target.kind === home.kind && target.name === home.name)) return;
      if (target.kind === 'apps' && home?.kind !== 'test') {
        return report(
          `Apps never import other apps ("${specifier}" reaches into apps/${target.name}): use a contract over NATS.`,
        );
      }
      if (target.kind === 'libs') {
        return report(`Relative import into libs/${target.name}: import "@ioa/${target.name}" instead.`);
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default tseslint.config(
  {
    ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', '.data/**', '.bench/**', 'docs/contract/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { ioa: { rules: { 'module-boundaries': moduleBoundaries } } },
    rules: {
      'ioa/module-boundaries': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A `default:` is a deliberate choice; without one, every member of the union must have its case.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      // Jest's matchers take methods by reference (`expect(service.method)`), which is not an unbound call.
      '@typescript-eslint/unbound-method': 'off',
      // Jest types its asymmetric matchers (`expect.any(String)`, `expect.stringMatching(...)`) as `any`, so every
      // partial expectation would trip these two; `no-explicit-any` still keeps `any` out of the tests themselves.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // Plain JavaScript (the bootstrap, config files): no type information, Node globals.
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
);
