/**
 * The one build every package uses: ESM + CJS + d.ts for `src/index.ts` and `src/testing/index.ts`.
 * The `./testing` entry is built as `testing/simulators` and fronted by a small `testing/index`
 * that loads it and, when msw (an optional peer) is missing, says how to install it instead of
 * Node's bare "Cannot find package 'msw'".
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { defineConfig } from 'tsup'

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string }

const MISSING_MSW = `${manifest.name}/testing needs msw 2, an optional peer dependency that is not installed: run "npm install -D msw@2" (pnpm add -D msw@2, yarn add -D msw@2). The main entry ${manifest.name} does not need it.`

/** Node's "not found" error for msw itself (not for a file inside a broken install of it). */
const IS_MISSING_MSW = `(error) => (error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'MODULE_NOT_FOUND') && /'msw(\\/node)?'/.test(String(error.message))`

async function writeTestingFronts(): Promise<void> {
  const dir = join('dist', 'testing')
  const names = Object.keys(await import(pathToFileURL(join(process.cwd(), dir, 'simulators.js')).href)).sort()
  const message = JSON.stringify(MISSING_MSW)
  writeFileSync(
    join(dir, 'index.js'),
    `// Loads the simulators; names the install command when msw is missing.
const isMissingMsw = ${IS_MISSING_MSW}
let simulators
try {
  simulators = await import('./simulators.js')
} catch (error) {
  if (isMissingMsw(error)) throw new Error(${message}, { cause: error })
  throw error
}
export const { ${names.join(', ')} } = simulators
`,
  )
  writeFileSync(
    join(dir, 'index.cjs'),
    `'use strict'
// Loads the simulators; names the install command when msw is missing.
const isMissingMsw = ${IS_MISSING_MSW}
try {
  module.exports = require('./simulators.cjs')
} catch (error) {
  if (isMissingMsw(error)) throw new Error(${message}, { cause: error })
  throw error
}
`,
  )
}

export default defineConfig({
  entry: { index: 'src/index.ts', 'testing/simulators': 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  // The types of ./testing are those of the simulators, emitted under the front's name.
  dts: {
    entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
    // Members marked `@internal` (constructors the client calls, wiring) are not part of the published types.
    compilerOptions: { stripInternal: true },
  },
  clean: true,
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  splitting: false,
  treeshake: true,
  // zod goes into the dist, tree-shaken: importing a service package then reads one file instead of
  // zod's 95 modules (67 of them locales we never load). Measured: 55 ms less cold start.
  noExternal: ['zod'],
  // No `paths`: sibling packages resolve through node_modules, so d.ts files import them, not inline them.
  tsconfig: 'tsconfig.build.json',
  onSuccess: writeTestingFronts,
})
