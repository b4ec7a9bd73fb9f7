/** Test-time resolution: packages import `@paywire/core` from source, so tests never need a build first. */
import { fileURLToPath } from 'node:url'

const core = (path: string) => fileURLToPath(new URL(`./packages/core/src/${path}`, import.meta.url))

export const alias = [
  { find: /^@paywire\/core\/testing$/, replacement: core('testing/index.ts') },
  { find: /^@paywire\/core$/, replacement: core('index.ts') },
]
