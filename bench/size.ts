/** Own dist size of each package, through the repo's own `scripts/size.mjs` (not reimplemented here). */

import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

export const SIZE_PACKAGES = ['core', 'card-gateway', 'remittance', 'bill-payment'] as const

export interface SizeResult {
  readonly pkg: string
  /** Bytes of `dist/index.js` bundled with dependencies external, minified. */
  readonly minified: number
  /** The same, gzip -9. */
  readonly gzip: number
  /** Whether the 25 KB minified target applies (service packages only). */
  readonly service: boolean
}

type MeasureOwnSize = (packageDir: string) => { minified: number; gzip: number }

export async function measureSizes(): Promise<SizeResult[]> {
  const url = pathToFileURL(join(ROOT, 'scripts', 'size.mjs')).href
  const { measureOwnSize } = (await import(url)) as { measureOwnSize: MeasureOwnSize }
  return SIZE_PACKAGES.map((name) => {
    const { minified, gzip } = measureOwnSize(join(ROOT, 'packages', name))
    return { pkg: `@paywire/${name}`, minified, gzip, service: name !== 'core' }
  })
}
