#!/usr/bin/env node
// The public surface of every package, pinned: each entry point's exported names with their kind
// (class, function, interface, type, const), read by the TypeScript compiler from the sources and
// written to packages/<pkg>/api.md. `node scripts/api-report.mjs` checks that the files still hold
// (run by CI); `--update` rewrites them, so growing or shrinking the surface is a reviewed diff.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))
const update = process.argv.includes('--update')

/** The source file of each entry point in a package's `exports` (`./dist/x.js` → `src/x.ts`). */
function entries(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const found = []
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const file = typeof target === 'string' ? target : target?.import?.default
    if (typeof file !== 'string' || !file.startsWith('./dist/') || !file.endsWith('.js')) continue
    found.push({ subpath, source: join(dir, file.replace('./dist/', 'src/').replace(/\.js$/, '.ts')) })
  }
  return { name: manifest.name, found }
}

function kindOf(symbol, checker) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
  const f = target.flags
  if (f & ts.SymbolFlags.Class) return 'class'
  if (f & ts.SymbolFlags.Function) return 'function'
  if (f & ts.SymbolFlags.Enum) return 'enum'
  if (f & ts.SymbolFlags.Interface) return 'interface'
  if (f & ts.SymbolFlags.TypeAlias) return 'type'
  if (f & ts.SymbolFlags.Variable) return 'const'
  return 'other'
}

const packagesDir = join(root, 'packages')
const packages = readdirSync(packagesDir).map((name) => ({
  dir: join(packagesDir, name),
  ...entries(join(packagesDir, name)),
}))
const sources = packages.flatMap((pkg) => pkg.found.map((entry) => entry.source))
const config = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.base.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    },
  },
)
const program = ts.createProgram(sources, { ...config.options, noEmit: true })
const checker = program.getTypeChecker()

let stale = 0
for (const pkg of packages) {
  if (pkg.found.length === 0) continue
  const lines = [
    `# ${pkg.name}: public surface`,
    '',
    'Written by `node scripts/api-report.mjs --update`; CI fails when the exports differ from this file.',
  ]
  let total = 0
  for (const { subpath, source } of pkg.found) {
    const file = program.getSourceFile(source)
    if (!file) throw new Error(`not compiled: ${source}`)
    const symbol = checker.getSymbolAtLocation(file)
    const exported = symbol ? checker.getExportsOfModule(symbol) : []
    const rows = exported.map((s) => `- ${s.name} (${kindOf(s, checker)})`).sort()
    total += rows.length
    lines.push(
      '',
      `## \`${subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`}\` (${rows.length})`,
      '',
      ...rows,
    )
  }
  lines.splice(3, 0, '', `${total} names in ${pkg.found.length} entry point(s).`)
  const text = `${lines.join('\n')}\n`
  const path = join(pkg.dir, 'api.md')
  let before = ''
  try {
    before = readFileSync(path, 'utf8')
  } catch {}
  if (before === text) continue
  if (update) {
    writeFileSync(path, text)
    console.log(`wrote ${path.slice(root.length)} (${total} names)`)
  } else {
    stale += 1
    console.error(
      `${path.slice(root.length)} does not match the exports: run node scripts/api-report.mjs --update and review the diff`,
    )
  }
}
if (stale > 0) process.exit(1)
console.log(update ? 'api reports written' : 'api reports match the exports')
