/**
 * The test projects: one per package, plus the cross-package reliability suite. Vitest 4 no longer
 * reads this file on its own; `vitest.config.ts` imports the list as `test.projects`.
 */
export const projects = ['packages/*', 'tests/reliability']
