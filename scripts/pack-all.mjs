#!/usr/bin/env node
/**
 * `pnpm pack:all [folder]`: packs every package (the SDKs, @paywire/redis, @paywire/postgres, the CLI), as built, into one folder (default `packs/` at
 * the repository root) for a merchant project to `npm install` before the packages are published.
 * It builds nothing: run `pnpm build` first (a missing dist/ file fails here, naming it). `pnpm pack`
 * turns the `workspace:` ranges into real versions, so the tarballs install together with npm.
 * check-packages.mjs packs through `packAll` too.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))

/** The packages, dependencies first. */
export const PACKAGES = ['core', 'card-gateway', 'remittance', 'bill-payment', 'redis', 'postgres', 'otel', 'cli']

/** The folder `pnpm pack:all` writes to when given none. */
export const DEFAULT_DESTINATION = join(root, 'packs')

const manifestOf = (name) => JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'))

/** Every file a package's `exports` point at (its dist/ entries). */
function exportedFiles(exports) {
  if (typeof exports === 'string') return [exports]
  if (exports === null || typeof exports !== 'object') return []
  return Object.values(exports).flatMap(exportedFiles)
}

/** The newest modification time under `dir`, in ms (0 when it does not exist). */
function newestIn(dir) {
  if (!existsSync(dir)) return 0
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs)
  }
  return newest
}

/**
 * Refuses to pack a package whose dist/ lacks a file its `exports` name (`pnpm build` has not run);
 * returns a warning for each dist/ older than its src/ (a build is probably due).
 */
export function checkBuilt(names = PACKAGES) {
  const missing = []
  const stale = []
  for (const name of names) {
    const dir = join(root, 'packages', name)
    const manifest = manifestOf(name)
    const bins = typeof manifest.bin === 'object' && manifest.bin !== null ? Object.values(manifest.bin) : []
    const files = [...exportedFiles(manifest.exports), ...bins]
      .map((file) => (file.startsWith('./') ? file : `./${file}`))
      .filter((file) => file.startsWith('./dist/'))
    const absent = files.filter((file) => !existsSync(join(dir, file))).map((file) => file.slice(2))
    if (absent.length) {
      const shown =
        absent.length > 2 ? `${absent.slice(0, 2).join(', ')} and ${absent.length - 2} more` : absent.join(', ')
      missing.push(`packages/${name} lacks ${shown}`)
    } else if (files.length && newestIn(join(dir, 'src')) > newestIn(join(dir, 'dist'))) {
      stale.push(`packages/${name}: src/ changed after the last build`)
    }
  }
  if (missing.length) {
    throw new Error(
      `not built: ${missing.join('; ')}. pack:all packs what is built and builds nothing: run \`pnpm build\` first.`,
    )
  }
  return stale
}

/**
 * Packs `names` with `pnpm pack` into `destination` (created if needed; earlier paywire tarballs in
 * it are removed, so `*.tgz` never mixes builds). Each tarball's name carries the first 10 hex digits
 * of its SHA-256 (`paywire-core-0.2.0-3f2a9c41d0.tgz`): a rebuild with other contents is another
 * file, so `npm install` of it changes package.json and the lockfile, and npm's cache can never hand
 * back the earlier build of the same name and version. Returns `{ tarballs, warnings }`: the absolute
 * tarball path by package name, and the `checkBuilt` warnings.
 */
export async function packAll({ destination = DEFAULT_DESTINATION, names = PACKAGES } = {}) {
  const warnings = checkBuilt(names)
  const target = resolve(destination)
  mkdirSync(target, { recursive: true })
  const ours = new RegExp(`^paywire-(${PACKAGES.join('|')})-\\d.*\\.tgz$`)
  for (const file of readdirSync(target)) if (ours.test(file)) rmSync(join(target, file))
  const tarballs = {}
  await Promise.all(
    names.map(async (name) => {
      const manifest = manifestOf(name)
      await promisify(execFile)('pnpm', ['pack', '--pack-destination', target], {
        cwd: join(root, 'packages', name),
        maxBuffer: 16 * 1024 * 1024,
      })
      const stem = `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}`
      const packed = join(target, `${stem}.tgz`)
      if (!existsSync(packed)) throw new Error(`pnpm pack wrote no ${relative(root, packed)} for ${manifest.name}`)
      const digest = createHash('sha256').update(readFileSync(packed)).digest('hex').slice(0, 10)
      const file = join(target, `${stem}-${digest}.tgz`)
      renameSync(packed, file)
      tarballs[name] = file
    }),
  )
  return { tarballs: Object.fromEntries(names.map((name) => [name, tarballs[name]])), warnings }
}

/**
 * The commands a merchant runs from their own project: the libraries as dependencies (together: the
 * services need core), the CLI and msw as development dependencies (they are tools, and 25 MB that a
 * production install should not carry).
 */
export function installCommand(tarballs) {
  const libraries = Object.entries(tarballs).filter(([name]) => name !== 'cli')
  const lines = [`npm install ${libraries.map(([, file]) => file).join(' ')}`]
  if (tarballs.cli) lines.push(`npm install -D ${tarballs.cli} msw@2`)
  return lines.join('\n  ')
}

const invoked = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
if (invoked) {
  const destination = resolve(process.argv[2] ?? DEFAULT_DESTINATION)
  console.log('pack:all packs the packages as built; it builds nothing (run `pnpm build` first).')
  try {
    const { tarballs, warnings } = await packAll({ destination })
    for (const warning of warnings) console.warn(`warning: ${warning}; run \`pnpm build\` to pack the current code`)
    for (const file of Object.values(tarballs)) console.log(`  ${relative(process.cwd(), file) || file}`)
    console.log('\nFrom your project, install them together (a service package alone cannot find @paywire/core);')
    console.log('leave out redis, postgres and otel unless you use them:\n')
    console.log(`  ${installCommand(tarballs)}\n`)
    console.log('msw is for the ./testing simulators in your tests; the CLI and msw are development dependencies (-D).')
  } catch (error) {
    console.error(`pack:all failed: ${error.message}`)
    process.exit(1)
  }
}
