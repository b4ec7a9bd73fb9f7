/** Own dist size of each package, through the repo's own `scripts/size.mjs` (not reimplemented here). */

import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

export const SIZE_PACKAGES = ['core', 'card-gateway', 'remittance', 'bill-payment'] as const

export interface SizeResult {
  readonly pkg: string
  /** Bytes of the package's own code (source entry, dependencies external), minified. */
  readonly minified: number
  /** The same, gzip -9. */
  readonly gzip: number
  /** Bytes of `dist/index.js` as shipped (zod inside), minified. */
  readonly shippedMinified: number
}

type Measure = (packageDir: string) => { minified: number; gzip: number }

export async function measureSizes(): Promise<SizeResult[]> {
  const url = pathToFileURL(join(ROOT, 'scripts', 'size.mjs')).href
  const sizes = (await import(url)) as { measureOwnSize: Measure; measureShippedSize: Measure }
  return SIZE_PACKAGES.map((name) => {
    const dir = join(ROOT, 'packages', name)
    const { minified, gzip } = sizes.measureOwnSize(dir)
    return { pkg: `@paywire/${name}`, minified, gzip, shippedMinified: sizes.measureShippedSize(dir).minified }
  })
}
