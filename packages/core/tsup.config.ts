/**
 * Core's build: the shared one (`tsup.base.ts`), except that the engine and the merchant entry are one
 * bundle. `dist/engine.js` holds all of core; `dist/index.js` is a front re-exporting the merchant
 * names from it, so a class is the same object whichever entry it is imported from.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig, type Options } from 'tsup'
import base from '../../tsup.base.js'

const shared = base as Options

/** The value (not type-only) names `src/index.ts` exports: what the merchant front re-exports. */
function merchantValues(): string[] {
  const source = readFileSync('src/index.ts', 'utf8')
  const names = Array.from(source.matchAll(/^export \{([^}]*)\} from/gm), (match) => match[1] ?? '')
  return names
    .flatMap((list) => list.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '' && !name.startsWith('type '))
    .sort()
}

function writeMerchantFronts(): void {
  const names = merchantValues()
  const header = '// The merchant entry of @paywire/core: its names, from the one bundle (dist/engine).\n'
  writeFileSync(join('dist', 'index.js'), `${header}export { ${names.join(', ')} } from './engine.js'\n`)
  const cjs = names.map((name) => `exports.${name} = engine.${name}`).join('\n')
  writeFileSync(join('dist', 'index.cjs'), `'use strict'\n${header}const engine = require('./engine.cjs')\n${cjs}\n`)
}

export default defineConfig({
  ...shared,
  // zod in an entry of its own (src/zod.ts): one copy for every service, loaded only by them.
  entry: { engine: 'src/everything.ts', zod: 'src/zod.ts', 'testing/simulators': 'src/testing/index.ts' },
  dts: {
    entry: {
      index: 'src/index.ts',
      engine: 'src/engine.ts',
      zod: 'src/zod.ts',
      'testing/index': 'src/testing/index.ts',
    },
  },
  async onSuccess() {
    writeMerchantFronts()
    if (typeof shared.onSuccess === 'function') await shared.onSuccess()
  },
})
