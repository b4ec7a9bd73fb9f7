/** Own-code size of a package: its ESM entry bundled with every dependency external, minified, gzipped. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { buildSync } from 'esbuild'

/** `{ minified, gzip }` in bytes for `<packageDir>/dist/index.js` (run the build first). */
export function measureOwnSize(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const external = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    'node:*',
  ]
  const result = buildSync({
    entryPoints: [join(packageDir, 'dist', 'index.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    external,
    write: false,
  })
  const code = result.outputFiles[0].contents
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length }
}
