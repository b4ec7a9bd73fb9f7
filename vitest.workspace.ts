/**
 * The test projects: one per package (named after it: `core`, `card-gateway`, …), plus the
 * cross-package reliability suite (`reliability`: fault matrix, ledgers, properties, load). Vitest 4
 * no longer reads this file on its own; `vitest.config.ts` imports the list as `test.projects`.
 * `pnpm test:fast` runs every project but `reliability`, without coverage.
 */
export const projects = ['packages/*', 'tests/reliability']
