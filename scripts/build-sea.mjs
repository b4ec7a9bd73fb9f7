#!/usr/bin/env node
/**
 * Builds `dist-sea/paywire`: the `paywire` CLI (simulator included) as one executable that needs no
 * Node toolchain and no node_modules, for merchants who integrate from another language.
 *
 * Steps (Node's single executable applications): bundle the CLI from source with esbuild into one
 * CommonJS file (SEA runs CommonJS only), write the SEA config, generate the blob with
 * `node --experimental-sea-config`, copy the running node binary and inject the blob with postject.
 *
 * Usage: node scripts/build-sea.mjs [--out dist-sea]
 */

import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const outIndex = process.argv.indexOf('--out')
const out = resolve(root, outIndex > 0 ? (process.argv[outIndex + 1] ?? 'dist-sea') : 'dist-sea')
const started = performance.now()

// The fuse postject flips in the binary: Node looks for it to know a blob is injected.
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'

/** `@paywire/<pkg>[/<sub>]` resolves to the package's TypeScript source, as the tests' aliases do. */
const workspaceSource = {
  name: 'paywire-source',
  setup(b) {
    b.onResolve({ filter: /^@paywire\// }, (args) => {
      const [, pkg, ...sub] = args.path.split('/')
      const base = join(root, 'packages', pkg, 'src')
      const candidates =
        sub.length === 0
          ? [join(base, 'index.ts')]
          : [join(base, `${sub.join('/')}.ts`), join(base, ...sub, 'index.ts')]
      const found = candidates.find((file) => existsSync(file))
      if (!found) return { errors: [{ text: `no source for ${args.path} (tried ${candidates.join(', ')})` }] }
      return { path: found }
    })
    // bin.ts reads its version from ../package.json beside it; the executable has no such file, so
    // the version is written into the bundle. The build fails if the line it replaces changes.
    b.onLoad({ filter: /packages[\\/]cli[\\/]src[\\/]bin\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      const read = "readFileSync(new URL('../package.json', import.meta.url), 'utf8')"
      if (!source.includes(read)) return { errors: [{ text: `bin.ts no longer reads its version with: ${read}` }] }
      const manifest = readFileSync(join(root, 'packages/cli/package.json'), 'utf8')
      const { version } = JSON.parse(manifest)
      return { contents: source.replace(read, JSON.stringify(JSON.stringify({ version }))), loader: 'ts' }
    })
  },
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const bundle = join(out, 'paywire.cjs')
await build({
  entryPoints: [join(root, 'packages/cli/src/bin.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile: bundle,
  plugins: [workspaceSource],
  logLevel: 'warning',
  legalComments: 'none',
})

const blob = join(out, 'sea-prep.blob')
const config = join(out, 'sea-config.json')
writeFileSync(
  config,
  `${JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }, null, 2)}\n`,
)
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'inherit' })

const binary = join(out, 'paywire')
copyFileSync(process.execPath, binary)
const postject = join(root, 'node_modules/postject/dist/cli.js')
execFileSync(process.execPath, [postject, binary, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE], {
  // postject warns about ELF note sections it does not need on Linux; its own failure still throws.
  stdio: 'ignore',
})

const seconds = ((performance.now() - started) / 1000).toFixed(1)
const mb = (statSync(binary).size / 1024 / 1024).toFixed(1)
const bundleKb = (statSync(bundle).size / 1024).toFixed(0)
process.stdout.write(`built ${binary}: ${mb} MB (bundle ${bundleKb} kB) in ${seconds} s\n`)
