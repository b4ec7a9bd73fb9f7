/**
 * Sizes of a package, in bytes, minified and gzipped: its own code (the source entry bundled with
 * every dependency external, so zod, which the dist carries inside, is not counted as ours) and
 * what it ships (`dist/index.js` as built, zod included).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { buildSync } from 'esbuild'

function minifiedSize(entry, external) {
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    external,
    write: false,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0].contents
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length }
}

/** `{ minified, gzip }` of the package's own code, from `<packageDir>/src/index.ts`. */
export function measureOwnSize(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const external = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    'node:*',
  ]
  return minifiedSize(join(packageDir, 'src', 'index.ts'), external)
}

/** `{ minified, gzip }` of `<packageDir>/dist/index.js` as shipped (run the build first), bundled deps included. */
export function measureShippedSize(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const external = [...Object.keys(manifest.dependencies ?? {}), 'node:*'].filter((name) => name !== 'zod')
  return minifiedSize(join(packageDir, 'dist', 'index.js'), external)
}
