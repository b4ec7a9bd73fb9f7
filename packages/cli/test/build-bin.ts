/**
 * Vitest global setup: bundles the CLI from source (the packages resolve to their `src`, through
 * the repository's tsconfig paths) into one file, so every test spawns a real `paywire` process
 * that starts in a fraction of a second, without a prior `pnpm build`. The packed, published
 * binary is exercised again by scripts/check-packages.mjs.
 */
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

export const BIN = fileURLToPath(new URL('../.test-build/paywire.mjs', import.meta.url))

export default async function setup(): Promise<void> {
  mkdirSync(fileURLToPath(new URL('../.test-build/', import.meta.url)), { recursive: true })
  await build({
    entryPoints: [fileURLToPath(new URL('../src/bin.ts', import.meta.url))],
    outfile: BIN,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)),
    // msw stays a package, loaded from packages/cli/node_modules as the published CLI loads it.
    external: ['msw'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'warning',
  })
}
