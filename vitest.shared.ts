/** Test-time resolution: packages import each other from source, so tests never need a build first. */
import { fileURLToPath } from 'node:url'

const source = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url))

export const alias = [
  ...['core', 'card-gateway', 'remittance', 'bill-payment'].flatMap((name) => [
    { find: new RegExp(`^@paywire/${name}/testing$`), replacement: source(`${name}/src/testing/index.ts`) },
    { find: new RegExp(`^@paywire/${name}$`), replacement: source(`${name}/src/index.ts`) },
  ]),
  { find: /^@paywire\/core\/engine$/, replacement: source('core/src/engine.ts') },
  { find: /^@paywire\/core\/zod$/, replacement: source('core/src/zod.ts') },
  { find: /^@paywire\/redis$/, replacement: source('redis/src/index.ts') },
  { find: /^@paywire\/postgres$/, replacement: source('postgres/src/index.ts') },
  { find: /^@paywire\/otel$/, replacement: source('otel/src/index.ts') },
  // scripts/check-undici-latest.mjs: the tests on the newest undici 7 (installed outside the
  // workspace) instead of the locked one, core's own loads of undici included.
  ...(process.env['PAYWIRE_UNDICI_DIR']
    ? [{ find: /^undici(\/.*)?$/, replacement: `${process.env['PAYWIRE_UNDICI_DIR']}/node_modules/undici$1` }]
    : []),
]
