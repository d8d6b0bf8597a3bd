// @ts-check
/**
 * One lint config for the whole monorepo, run from the root (`pnpm run lint`, part of `test`).
 * TypeScript in the packages is linted with type information, so the rules that catch real bugs
 * (a promise nobody awaits, an async callback where a sync one is expected) can see types; style
 * is Prettier's job, so every rule that would argue with it is off.
 */
import js from "@eslint/js";
import prettier from "eslint-config-prettier/flat";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The package sources and tests: each file belongs to its package's tsconfig. */
const TYPED_FILES = ["packages/*/src/**/*.ts", "packages/*/test/**/*.ts"];

export default defineConfig([
  globalIgnores(["**/dist/", "**/node_modules/", "**/.turbo/", "**/coverage/"]),
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  js.configs.recommended,
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommended],
  },
  {
    files: TYPED_FILES,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // An `async` member without `await` is how a Promise-returning contract method (Environment,
      // Transport) turns a synchronous throw into a rejection: exactly what callers rely on.
      "@typescript-eslint/require-await": "off",
      // Passing on what was caught or what a signal aborted with (`signal.reason`) is right; the
      // rule still refuses rejecting with a literal or a plain object.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      // `_name` marks a parameter an interface makes us accept and we do not need.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  prettier,
]);
