#!/usr/bin/env node
// The public surface of every package, pinned: each entry point's exported names with their kind
// (class, function, interface, type, const) and their signatures (each public member of a class or
// interface with its type, a function's call signatures, a type's definition, a const's type), read
// by the TypeScript compiler from the sources and written to packages/<pkg>/api.md.
// `node scripts/api-report.mjs` checks that the files still hold (run by CI); `--update` rewrites
// them, so a new name, a changed parameter or a changed result type is a reviewed diff.

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

const FORMAT =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope |
  ts.TypeFormatFlags.WriteArrowStyleSignature

/**
 * How a declaration is API: `public`, `protected` (a subclass sees it: a merchant's subclass of a
 * client), or `undefined` when it is not (`#private`, `private`, `@internal`).
 */
function visibility(declaration) {
  if (!declaration) return undefined
  if (declaration.name && ts.isPrivateIdentifier(declaration.name)) return undefined
  if (ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal')) return undefined
  const flags = ts.getCombinedModifierFlags(declaration)
  if (flags & ts.ModifierFlags.Private) return undefined
  return flags & ts.ModifierFlags.Protected ? 'protected' : 'public'
}

/** A declaration's type parameters as written (`<S extends ResponseSchema | undefined = undefined>`), or ''. */
function typeParametersOf(declaration) {
  const parameters = declaration.typeParameters
  return parameters?.length ? `<${parameters.map((p) => p.getText().replace(/\s+/g, ' ')).join(', ')}>` : ''
}

/** One line per public member declared by a class itself (an interface: with its inherited ones): `name(args): result` or `name: type`. */
function memberLines(symbol, type, checker, at, inherited = false) {
  const lines = []
  const own = (member) => member.declarations?.some((d) => d.parent && symbol.declarations?.includes(d.parent))
  for (const member of checker.getPropertiesOfType(type)) {
    if (!inherited && !own(member)) continue
    const declaration = member.declarations?.[0]
    const seen = visibility(declaration)
    if (seen === undefined) continue
    const prefix = seen === 'protected' ? 'protected ' : ''
    const memberType = checker.getTypeOfSymbolAtLocation(member, at)
    // A symbol-keyed member (`[inspect.custom]`) by its source name: the compiler's name for it carries a run's id.
    const name = member.name.startsWith('__@') ? declaration.name.getText() : member.name
    const optional = member.flags & ts.SymbolFlags.Optional ? '?' : ''
    const isMethod = member.flags & ts.SymbolFlags.Method
    if (isMethod) {
      for (const signature of memberType.getCallSignatures()) {
        lines.push(`${prefix}${name}${optional}${checker.signatureToString(signature, at, FORMAT)}`)
      }
      continue
    }
    const readonly = ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly ? 'readonly ' : ''
    const accessor = [
      member.flags & ts.SymbolFlags.GetAccessor ? 'get ' : '',
      member.flags & ts.SymbolFlags.SetAccessor ? 'set ' : '',
    ].join('')
    lines.push(`${prefix}${accessor}${readonly}${name}${optional}: ${checker.typeToString(memberType, at, FORMAT)}`)
  }
  return lines
}

/** The signature lines of one exported name, indented under it. */
function signatureLines(exported, checker) {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
  const declaration = symbol.declarations?.[0]
  if (!declaration) return []
  const f = symbol.flags
  const lines = []
  const typeParameters = typeParametersOf(declaration)
  if (typeParameters && !(f & ts.SymbolFlags.Function)) lines.push(typeParameters)
  if (f & ts.SymbolFlags.Class) {
    const heritage = declaration.heritageClauses?.map((clause) => clause.getText()).join(' ')
    if (heritage) lines.push(heritage)
    for (const info of checker.getIndexInfosOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      lines.push(
        `[key: ${checker.typeToString(info.keyType)}]: ${checker.typeToString(info.type, declaration, FORMAT)}`,
      )
    }
    const statics = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    for (const signature of statics.getConstructSignatures()) {
      const made = signature.getDeclaration()
      if (made && visibility(made) === undefined) continue
      if (made)
        lines.push(
          `${visibility(made) === 'protected' ? 'protected ' : ''}constructor${checker.signatureToString(signature, declaration, FORMAT).replace(/ => .*$/, '')}`,
        )
    }
    for (const line of memberLines(symbol, statics, checker, declaration)) {
      if (line.startsWith('prototype:')) continue
      lines.push(`static ${line}`)
    }
    lines.push(...memberLines(symbol, checker.getDeclaredTypeOfSymbol(symbol), checker, declaration))
  } else if (f & ts.SymbolFlags.Interface) {
    const heritage = declaration.heritageClauses?.map((clause) => clause.getText()).join(' ')
    if (heritage) lines.push(heritage)
    const type = checker.getDeclaredTypeOfSymbol(symbol)
    for (const signature of type.getCallSignatures())
      lines.push(checker.signatureToString(signature, declaration, FORMAT))
    for (const info of checker.getIndexInfosOfType(type)) {
      lines.push(
        `[key: ${checker.typeToString(info.keyType)}]: ${checker.typeToString(info.type, declaration, FORMAT)}`,
      )
    }
    // Inherited members too: an interface's base may be one no entry exports (`CheckoutOrder extends Order`).
    lines.push(...memberLines(symbol, type, checker, declaration, true))
  } else if (f & ts.SymbolFlags.TypeAlias) {
    lines.push(`= ${declaration.type.getText().replace(/\s+/g, ' ')}`)
  } else if (f & ts.SymbolFlags.Function) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    for (const signature of type.getCallSignatures())
      lines.push(checker.signatureToString(signature, declaration, FORMAT))
  } else if (f & ts.SymbolFlags.Variable) {
    lines.push(`: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), declaration, FORMAT)}`)
  }
  return lines.map((line) => `  - \`${line.replace(/`/g, "'")}\``)
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
    'Written by `node scripts/api-report.mjs --update`; CI fails when the exports or their signatures differ from this file.',
  ]
  let total = 0
  for (const { subpath, source } of pkg.found) {
    const file = program.getSourceFile(source)
    if (!file) throw new Error(`not compiled: ${source}`)
    const symbol = checker.getSymbolAtLocation(file)
    const exported = symbol ? checker.getExportsOfModule(symbol) : []
    const rows = [...exported]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((s) => [`- ${s.name} (${kindOf(s, checker)})`, ...signatureLines(s, checker)])
    total += exported.length
    lines.push(
      '',
      `## \`${subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`}\` (${exported.length})`,
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
