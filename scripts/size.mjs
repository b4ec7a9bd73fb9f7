/**
 * Sizes of a package, in bytes, minified and gzipped: its own code (the source entry bundled with
 * every dependency external, so zod, which the dist carries inside, is not counted as ours) and
 * what it ships (`dist/index.js` as built, zod included).
 */
import { existsSync, readFileSync } from 'node:fs'
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

/**
 * The file holding all of a package: `src/everything.ts` (core's engine and merchant entries, one
 * bundle) when there is one, else `src/index.ts`; `dist` likewise (`engine.js` or `index.js`).
 */
function whole(packageDir, dir, names) {
  const found = names.map((name) => join(packageDir, dir, name)).find((path) => existsSync(path))
  return found ?? join(packageDir, dir, names.at(-1))
}

/** `{ minified, gzip }` of the package's own code, from its whole source (see `whole`). */
export function measureOwnSize(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const external = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    'node:*',
  ]
  return minifiedSize(whole(packageDir, 'src', ['everything.ts', 'index.ts']), external)
}

/** `{ minified, gzip }` of the package's whole dist as shipped (run the build first), bundled deps included. */
export function measureShippedSize(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const external = [...Object.keys(manifest.dependencies ?? {}), 'node:*'].filter((name) => name !== 'zod')
  return minifiedSize(whole(packageDir, 'dist', ['engine.js', 'index.js']), external)
}
