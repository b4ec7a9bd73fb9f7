#!/usr/bin/env node
/**
 * The public types derived from the rows, written out. A row is the one source of what its method
 * takes (its params schema, with field docs) and of the names derived from the tables (operation
 * names, action names); a type computed from it (`EndpointParams<typeof S2S.capture>`) reads, on
 * hover and in the published `.d.ts`, as the engine's types. So each such public type is written
 * out here as a plain interface or type (every field with its doc), as the TypeScript compiler
 * computes it from the rows, under the comment that names the computation:
 *
 *   // Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof S2S.capture>
 *
 * `resource()` checks at compile time that each method's params type is its row's; `--check` (run
 * by CI) fails on any written-out type the rows no longer make. A declaration still written as
 * `interface X extends EndpointParams<typeof ROWS.name> {}` (or `type X = EndpointParams<…>`) is
 * converted on the first run. The computation may name the file's exported values and types,
 * `EndpointParams` and zod's `z`.
 *
 * Run: node scripts/public-types.mjs [--check] [package directory names; default all three services]
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))
const check = process.argv.includes('--check')
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const SERVICES = named.length > 0 ? named : ['card-gateway', 'remittance', 'bill-payment']
const WRITTEN = /^\/\/ Written out by scripts\/public-types\.mjs \(edit the rows, then run it\) from: (.+)$/m
const DERIVED = /^EndpointParams<typeof \w+\.\w+>$/

function sourceFiles(dir) {
  const found = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path))
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

/** The written-out declarations of one file: each with its computation and its place in the text. */
function declarationsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found = []
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) continue
    const comments = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? []
    const written = comments.map((c) => WRITTEN.exec(text.slice(c.pos, c.end))).find(Boolean)
    let computed = written?.[1]
    if (!computed && ts.isInterfaceDeclaration(statement) && statement.members.length === 0) {
      const heritage = statement.heritageClauses?.[0]?.types
      if (heritage?.length === 1 && DERIVED.test(heritage[0].getText(source))) computed = heritage[0].getText(source)
    } else if (!computed && ts.isTypeAliasDeclaration(statement) && DERIVED.test(statement.type.getText(source))) {
      computed = statement.type.getText(source)
    }
    if (!computed) continue
    // The declaration from its `export` (after its JSDoc) to its end: what is rewritten.
    const start = statement.getStart(source, false)
    found.push({ name: statement.name.text, computed, start, end: statement.end, written: !!written })
  }
  return { found, exported: exportedNames(source) }
}

/** The names a module exports (values and types), which a computation may use. */
function exportedNames(source) {
  const names = new Set()
  for (const statement of source.statements) {
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    if (exported && statement.name) names.add(statement.name.text)
    if (exported && ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) names.add(declaration.name.getText(source))
    }
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add(element.name.text)
    }
  }
  return names
}

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope |
  ts.TypeFormatFlags.WriteArrayAsGenericType

/** Whether `type` is an object type to write out member by member: anonymous, mapped, or named where its name would not resolve. */
function isLiteralObject(type, checker, top = false) {
  // An intersection of object literals (`{ a: string } & { b?: never }`) is written as one.
  if (type.flags & ts.TypeFlags.Intersection) return type.types.every((part) => isLiteralObject(part, checker))
  if (!(type.flags & ts.TypeFlags.Object)) return false
  if (checker.isArrayType(type) || checker.isTupleType(type)) return false
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) return false
  if (type.aliasSymbol) return top || !nameable(type.aliasSymbol)
  const name = type.symbol?.name
  if (name === '__type' || name === '__object' || type.objectFlags & ts.ObjectFlags.Mapped) return true
  // A named interface from another file (or one shadowed there) is written out, not named.
  return Boolean(type.symbol?.flags & ts.SymbolFlags.Interface) && !nameable(type.symbol)
}

function docOf(symbol, checker, indent) {
  // The doc and its tags (`@deprecated`, `@example`…), as written on the schema's member.
  const tags = symbol.getJsDocTags(checker).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`.trim())
  const text = [ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim(), ...tags]
    .filter(Boolean)
    .join('\n')
  if (!text) return ''
  const lines = text.split('\n')
  if (lines.length === 1 && lines[0].length + indent.length < 110) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`
}

function propertyName(name) {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)
}

/** Whether a member is `readonly`: declared so, or made so by a mapped type's `readonly`. */
function isReadonly(symbol) {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0]
  if (declaration && ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly) return true
  // A mapped type's member is a transient symbol whose check flags say so (compiler-internal).
  return Boolean((symbol.links?.checkFlags ?? symbol.checkFlags ?? 0) & 8)
}

/** Where a member is declared, for declaration order (members of one schema share a file). */
function declaredAt(symbol) {
  return symbol.declarations?.[0]?.getStart() ?? Number.MAX_SAFE_INTEGER
}

/**
 * Whether a declared name can be written in the file being written and mean this declaration: the
 * standard library's (`Record`, `Array`) anywhere, a package's own only in the file that declares it
 * at its top level (elsewhere it is not in scope, or another declaration of the name would be).
 */
function nameable(symbol) {
  const declaration = symbol?.declarations?.[0]
  if (declaration === undefined || !ts.isSourceFile(declaration.parent)) return false
  const file = declaration.parent.fileName
  return file.includes('/node_modules/typescript/lib/') || file === writing
}

/** `type` as source text: object literals member by member with their docs, anything else as the compiler writes it. */
function print(type, checker, context, indent, top = false, inherited = new Set()) {
  if (type.flags & ts.TypeFlags.Union && (top || !type.aliasSymbol || !nameable(type.aliasSymbol))) {
    const parts = type.types.map((member) => print(member, checker, context, indent))
    // `true | false` is `boolean`.
    const booleans = parts.filter((part) => part === 'true' || part === 'false')
    const rest = parts.filter((part) => part !== 'true' && part !== 'false')
    const merged = booleans.length === 2 ? [...rest, 'boolean'] : parts
    const last = merged.filter((part) => part === 'undefined')
    return [...merged.filter((part) => part !== 'undefined'), ...last].join(' | ')
  }
  if (!isLiteralObject(type, checker, top)) {
    // Arrays and the standard library's generic aliases with each argument written out, so no
    // argument is named where its name would not resolve.
    if (checker.isArrayType(type)) {
      const element = print(checker.getTypeArguments(type)[0], checker, context, indent)
      const readonly = type.symbol?.name === 'ReadonlyArray' ? 'readonly ' : ''
      return `${readonly}${/[|&\s]/.test(element) && !element.startsWith('{') ? `(${element})` : element}[]`
    }
    if (type.aliasSymbol && nameable(type.aliasSymbol) && type.aliasTypeArguments?.length) {
      const args = type.aliasTypeArguments.map((argument) => print(argument, checker, context, indent))
      return `${type.aliasSymbol.name}<${args.join(', ')}>`
    }
    if (type.aliasSymbol && !nameable(type.aliasSymbol)) {
      return checker.typeToString(type, context, FLAGS | ts.TypeFormatFlags.InTypeAlias)
    }
    return checker.typeToString(type, context, FLAGS)
  }
  const inner = `${indent}  `
  let body = ''
  // In the order the schema declares them (the input type lists required members first).
  const properties = [...checker.getPropertiesOfType(type)]
    .filter((property) => !inherited.has(property.name))
    .sort((a, b) => declaredAt(a) - declaredAt(b))
  for (const property of properties) {
    const declared = checker.getTypeOfSymbolAtLocation(property, context)
    const optional = property.flags & ts.SymbolFlags.Optional ? '?' : ''
    const readonly = isReadonly(property) ? 'readonly ' : ''
    body += docOf(property, checker, inner)
    body += `${inner}${readonly}${propertyName(property.name)}${optional}: ${print(declared, checker, context, inner)}\n`
  }
  for (const info of checker.getIndexInfosOfType(type)) {
    const key = checker.typeToString(info.keyType, context, FLAGS)
    body += `${inner}${info.isReadonly ? 'readonly ' : ''}[key: ${key}]: ${print(info.type, checker, context, inner)}\n`
  }
  return `{\n${body}${indent}}`
}

/**
 * `text` without its import of `EndpointParams` once no declaration computes a type from it (the
 * converted declarations used it; the written-out ones do not), so the guide's flow ends lint-clean.
 */
function withoutUnusedEndpointParams(text) {
  // The code, without imports and line comments (the written-out types' comments name it).
  const code = text.replace(/^import[^;]*?from '[^']+'\n/gms, '').replace(/^\s*\/\/.*$/gm, '')
  if (/\bEndpointParams\b/.test(code)) return text
  return text
    .replace(/^import type \{ EndpointParams \} from '@paywire\/core\/engine'\n/m, '')
    .replace(
      /(^import (?:type )?\{[^}]*?)\s*(?:type )?EndpointParams,?([^}]*\} from '@paywire\/core\/engine')/m,
      '$1$2',
    )
}

/** Where a member is declared: the schema member it comes from (one node for every type made from it). */
function sourceOf(symbol) {
  return symbol.valueDeclaration ?? symbol.declarations?.[0]
}

/**
 * The written-out interface of the same file that declaration `i` extends, if any: the largest one
 * whose every member is one of `i`'s, made from the same schema member with the same optionality
 * (two transfers' params and the fields they share, all from one shape). `i` then names it and
 * writes only its own members, instead of the shared ones a second time.
 */
function baseOf(i, found, types, checker) {
  const own = new Map(checker.getPropertiesOfType(types[i]).map((property) => [property.name, property]))
  let best
  for (let j = 0; j < found.length; j++) {
    const candidate = types[j]
    if (j === i || candidate.flags & ts.TypeFlags.Union || !(candidate.flags & ts.TypeFlags.Object)) continue
    if (checker.getIndexInfosOfType(candidate).length > 0) continue
    const members = checker.getPropertiesOfType(candidate)
    // A base has fewer members, or as many and no index signature where `i` has one (an open body).
    const extra = own.size - members.length
    if (members.length === 0 || extra < 0 || (extra === 0 && checker.getIndexInfosOfType(types[i]).length === 0))
      continue
    const shared = members.every((member) => {
      const mine = own.get(member.name)
      return (
        mine !== undefined &&
        sourceOf(mine) === sourceOf(member) &&
        (mine.flags & ts.SymbolFlags.Optional) === (member.flags & ts.SymbolFlags.Optional)
      )
    })
    if (shared && (best === undefined || members.length > best.members.size)) {
      best = { name: found[j].name, members: new Set(members.map((member) => member.name)) }
    }
  }
  return best
}

/** `text` as biome formats the file (what the repository holds). */
function formatted(file, text) {
  const biome = join(root, 'node_modules', '.bin', 'biome')
  const run = spawnSync(biome, ['format', `--stdin-file-path=${file}`], { input: text, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`biome format ${relative(root, file)}: ${run.stderr}`)
  return run.stdout
}

// One program over the services' sources plus, per file with written-out types, a probe file that
// computes each, so the checker gives the type the rows make.
const files = SERVICES.flatMap((service) => sourceFiles(join(root, 'packages', service, 'src')))
const probes = new Map()
const declarations = new Map()
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  const { found, exported } = declarationsOf(file, text)
  if (found.length === 0) continue
  declarations.set(file, { text, found })
  const probe = join(dirname(file), `__public_types_${probes.size}.ts`)
  const module = `./${relative(dirname(file), file).replace(/\.ts$/, '.js')}`
  const named = new Set(found.flatMap((d) => d.computed.match(/[A-Za-z_$][\w$]*/g) ?? []))
  const imports = [...named].filter((name) => exported.has(name))
  const lines = [
    `import type { EndpointParams } from '@paywire/core/engine'`,
    `import type * as z from 'zod'`,
    ...(imports.length > 0 ? [`import type { ${imports.join(', ')} } from '${module}'`] : []),
    ...found.map((d, i) => `export type P${i} = ${d.computed}`),
  ]
  probes.set(probe, { file, text: `${lines.join('\n')}\n` })
}

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
const host = ts.createCompilerHost({ ...config.options, noEmit: true })
const readFile = host.readFile.bind(host)
const fileExists = host.fileExists.bind(host)
host.readFile = (name) => probes.get(name)?.text ?? readFile(name)
host.fileExists = (name) => probes.has(name) || fileExists(name)
const program = ts.createProgram([...files, ...probes.keys()], { ...config.options, noEmit: true }, host)
const checker = program.getTypeChecker()

let stale = 0
/** The file being written: its own top-level types can be named in it. */
let writing = ''
for (const [probeName, probe] of probes) {
  const { text, found } = declarations.get(probe.file)
  writing = probe.file
  const probeSource = program.getSourceFile(probeName)
  const aliases = probeSource.statements.filter(ts.isTypeAliasDeclaration)
  const types = aliases.map((alias) => checker.getTypeAtLocation(alias.name))
  let next = text
  // From the last declaration back, so earlier offsets stay right.
  for (let i = found.length - 1; i >= 0; i--) {
    const declaration = found[i]
    const alias = aliases[i]
    const type = types[i]
    const base = baseOf(i, found, types, checker)
    // The declaration's own type written out, never by the name it is computed from; the members
    // of a base it extends are the base's.
    const printed = print(type, checker, alias, '', true, base?.members)
    const marker = `// Written out by scripts/public-types.mjs (edit the rows, then run it) from: ${declaration.computed}`
    const written =
      printed.startsWith('{') && !(type.flags & ts.TypeFlags.Union)
        ? `export interface ${declaration.name} ${base ? `extends ${base.name} ` : ''}${printed}`
        : `export type ${declaration.name} = ${printed}`
    // A declaration not yet generated gets the marker above its JSDoc.
    let start = declaration.start
    let prefix = ''
    if (!declaration.written) {
      const jsdoc = text.lastIndexOf('/**', declaration.start)
      const between = jsdoc >= 0 ? text.slice(text.indexOf('*/', jsdoc) + 2, declaration.start) : 'x'
      start = jsdoc >= 0 && between.trim() === '' ? jsdoc : declaration.start
      prefix = `${marker}\n${text.slice(start, declaration.start)}`
    }
    next = `${next.slice(0, start)}${prefix}${written}${next.slice(declaration.end)}`
  }
  next = formatted(probe.file, withoutUnusedEndpointParams(next))
  if (next === text) continue
  stale++
  if (check) console.error(`${relative(root, probe.file)}: a written-out type is not as the rows make it`)
  else {
    writeFileSync(probe.file, next)
    console.log(`wrote ${relative(root, probe.file)}`)
  }
}

if (check && stale > 0) {
  console.error('run: node scripts/public-types.mjs, and commit the result')
  process.exit(1)
}
if (check) console.log(`public types: written out as the rows make them in ${declarations.size} files`)
