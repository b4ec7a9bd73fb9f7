#!/usr/bin/env node
/**
 * Fails when the documentation names a paywire API that does not exist. Reads README.md,
 * docs/*.md and packages/*\/README.md, and checks them against the sources (each package's
 * `src/index.ts` and `src/testing/index.ts`, compiled with the TypeScript checker, re-exports
 * resolved):
 *
 * - entries: every `@paywire/<name>` or `@paywire/<name>/testing` named anywhere is a real entry;
 * - imports: every specifier of `import { … } from '@paywire/…'` (fenced blocks of any language and
 *   inline code) is exported by exactly that entry;
 * - type and class names: an inline code span that is a PascalCase name (`CardGatewayError`,
 *   `OperationOptions<S>`, `Product | undefined`, `new CardGateway(…)`, `ApiError.headers`) names an
 *   export of some paywire entry, or a name of the small allowlist below (JavaScript, Node, undici…);
 * - constants: an inline SCREAMING_SNAKE span that starts or ends like an exported constant
 *   (`TEST_CARDS`, `SIMULATOR_…`, `…_MS`) is an export; other capitals are the wire's (`POST`,
 *   `GET_TRANS_STATUS`, `USD`) and are not checked;
 * - functions: an inline span starting with a bare call (`dedupeKey(event)`, `search()`) calls an
 *   exported function or a method of an exported class or interface;
 * - members: an inline chain from a known root (`gw.s2s.captureIfPending`, `error.reconciliation.lookup`,
 *   `remit.lookup.transactionStatus`, `simulator.failNext`) resolves member by member on the root's
 *   type (`gw` is a `CardGateway`, `error` any paywire error class, …); `.withResponse()` and
 *   `{ maxBodyBytes }` / `{ payment_id } | { order_id }` name members of exported types (compound
 *   names only: `{ pointer, detail }` is as likely the wire's).
 *
 * Prints what it checked, per kind; fails when any kind checked nothing (so it cannot pass
 * vacuously), and names the Markdown file and line of each unknown name.
 *
 * Run: node scripts/check-doc-names.mjs
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))

// ─── What the packages export ────────────────────────────────────────────────────────────────────

const packageNames = readdirSync(join(root, 'packages'))
  .filter((name) => existsSync(join(root, 'packages', name, 'src', 'index.ts')))
  .sort()
/** Packages that are a binary, not a library (`@paywire/cli`): a real name with no exports to check. */
const binaryPackages = new Set(
  readdirSync(join(root, 'packages'))
    .filter((name) => existsSync(join(root, 'packages', name, 'src', 'bin.ts')))
    .map((name) => `@paywire/${name}`),
)
/** `@paywire/core` → `packages/core/src/index.ts`, `@paywire/core/testing` → …/testing/index.ts, `@paywire/core/engine` → …/engine.ts, `@paywire/core/zod` → …/zod.ts */
const entryFiles = new Map()
for (const name of packageNames) {
  entryFiles.set(`@paywire/${name}`, join(root, 'packages', name, 'src', 'index.ts'))
  const testing = join(root, 'packages', name, 'src', 'testing', 'index.ts')
  if (existsSync(testing)) entryFiles.set(`@paywire/${name}/testing`, testing)
  const engine = join(root, 'packages', name, 'src', 'engine.ts')
  if (existsSync(engine)) entryFiles.set(`@paywire/${name}/engine`, engine)
  const zod = join(root, 'packages', name, 'src', 'zod.ts')
  if (existsSync(zod)) entryFiles.set(`@paywire/${name}/zod`, zod)
}

const base = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile)
const { options } = ts.parseJsonConfigFileContent(base.config, ts.sys, root)
const program = ts.createProgram([...entryFiles.values()], { ...options, noEmit: true })
const checker = program.getTypeChecker()

/** entry → Map(name → resolved symbol) */
const exportsOf = new Map()
/** name → resolved symbols, over every entry */
const allExports = new Map()
for (const [entry, file] of entryFiles) {
  const source = program.getSourceFile(file)
  const moduleSymbol = source && checker.getSymbolAtLocation(source)
  if (!moduleSymbol) throw new Error(`cannot read the exports of ${entry} (${file})`)
  const names = new Map()
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    names.set(exported.name, target)
    if (!allExports.has(exported.name)) allExports.set(exported.name, [])
    allExports.get(exported.name).push(target)
  }
  // A broken path mapping would make every entry look empty: refuse to check against nothing.
  if (names.size < 5)
    throw new Error(`${entry} exports only ${names.size} names: is tsconfig.base.json's "paths" right?`)
  exportsOf.set(entry, names)
}

/** Method and property names declared by exported classes and interfaces (methods are cited bare). */
const memberNames = new Set()
for (const symbols of allExports.values()) {
  for (const symbol of symbols) {
    if (!(symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue
    for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      memberNames.add(property.name)
      // One level down: `gw.s2s`'s methods are members of the `S2s` type, cited as `captureIfPending()`.
      const type = typeOfProperty(property)
      if (type) for (const inner of checker.getPropertiesOfType(type)) memberNames.add(inner.name)
    }
  }
}

function typeOfProperty(property) {
  const declaration = property.valueDeclaration ?? property.declarations?.[0]
  if (!declaration) return undefined
  return checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declaration))
}

/** The instance (or declared) type of an exported class, interface or type alias. */
function declaredType(name) {
  const symbol = allExports.get(name)?.find((s) => s.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class))
  if (!symbol) throw new Error(`root type ${name} is not exported by any paywire entry`)
  return checker.getDeclaredTypeOfSymbol(symbol)
}

function memberType(type, name) {
  const property = checker.getPropertyOfType(type, name)
  if (property) return typeOfProperty(property) ?? type
  if (checker.getIndexInfosOfType(type).length > 0) return checker.getAnyType()
  if (type.isUnion()) {
    for (const member of type.types) {
      const inner = checker.getPropertyOfType(member, name)
      if (inner) return typeOfProperty(inner) ?? member
    }
  }
  return undefined
}

// The variable names the docs use for paywire objects, and their types (several: any one may match).
const errorClasses = [...allExports.keys()].filter(
  (name) => /Error$/.test(name) && allExports.get(name).some((s) => s.flags & ts.SymbolFlags.Class),
)
const roots = {
  gw: ['CardGateway'],
  remit: ['Remittance'],
  bills: ['BillPayment'],
  client: ['CardGateway', 'Remittance', 'BillPayment'],
  custom: ['CardGateway'],
  checkout: ['Checkout'],
  s2s: ['S2s'],
  callbacks: ['Callbacks'],
  lookup: ['Lookup'],
  beneficiaries: ['Beneficiaries'],
  catalog: ['Catalog'],
  transactions: ['Transactions'],
  error: errorClasses,
  event: ['CallbackEvent'],
  simulator: ['CardGatewaySimulator', 'RemittanceSimulator', 'BillPaymentSimulator'],
  sim: ['StartedCardGatewaySimulator', 'StartedRemittanceSimulator', 'RunningBillPaymentSimulator'],
  server: ['MockServer'],
  clock: ['TestClock'],
  platformDefaults: ['CardGatewayPlatformDefaults', 'RemittancePlatformDefaults'],
}
/** `Transactions` is exported by two packages: a root type may have several declarations. */
const rootTypes = Object.fromEntries(
  Object.entries(roots).map(([rootName, typeNames]) => [
    rootName,
    typeNames.flatMap((typeName) =>
      (allExports.get(typeName) ?? [])
        .filter((s) => s.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class))
        .map((s) => checker.getDeclaredTypeOfSymbol(s)),
    ),
  ]),
)
for (const [rootName, types] of Object.entries(rootTypes)) {
  if (types.length === 0) throw new Error(`root "${rootName}": none of ${roots[rootName].join(', ')} is exported`)
}
const response = memberType(declaredType('WithResponse'), 'response')
if (!response) throw new Error('WithResponse has no `response` member')
rootTypes.response = [response]

// ─── Names that are not paywire's ───────────────────────────────────────────────────────────────

/** PascalCase names of the platform and of other libraries that the docs may name. */
const FOREIGN_NAMES = new Set([
  // JavaScript and the web platform
  ...['Error', 'RangeError', 'TypeError', 'URIError', 'AggregateError', 'Promise', 'String', 'Number'],
  ...['Date', 'JSON', 'Math', 'Object', 'Array', 'BigInt', 'NaN', 'Infinity', 'Symbol', 'Map', 'Set'],
  ...['Uint8Array', 'ArrayBuffer', 'URL', 'URLSearchParams', 'Request', 'Response', 'Headers'],
  ...['AbortSignal', 'AbortController', 'EventEmitter', 'TextDecoder', 'TextEncoder', 'Record'],
  ...['Partial', 'Readonly', 'ReadonlyArray'],
  // Node.js
  'Buffer',
  // undici
  ...['Agent', 'Client', 'Dispatcher', 'ProxyAgent', 'Pool', 'MockAgent'],
  // msw, zod, vitest, frameworks
  ...['HttpResponse', 'RequestHandler', 'ZodError', 'ZodType', 'Fastify'],
  // the callback recipes' runtimes and frameworks (Hono's route gets a Context; Bun.serve)
  ...['Context', 'Bun'],
  // HTTP header names cited as code
  ...['Location', 'Authorization', 'Expect'],
  // wire values of the services
  'Account',
])
/** SCREAMING_CASE words that are wire values or environment variables, not exports. */
const WIRE_WORDS = new Set([
  ...['GET_TRANS_STATUS', 'GET_TRANS_STATUS_BY_ORDER', 'CAPTURE', 'VOID', 'CREDITVOID', 'RECURRING_SALE'],
  ...['CREATE_SCHEDULE', 'DELETE_SCHEDULE', 'UPDATE_SCHEDULE', 'CANCEL_SCHEDULE'],
  ...['SUCCESS', 'DECLINED', 'REDIRECT', 'ACCEPTED', 'ERROR', 'UNDEFINED', 'PENDING', 'PREPARE', 'SETTLED'],
  ...['REVERSAL', 'REFUND', 'CHARGEBACK', 'SOURCE', 'DESTINATION', 'ENTERED', 'AGENT_OK', 'RELIABILITY_SEED'],
  ...['FST_ERR_CTP_ALREADY_PRESENT', 'UND_ERR_INVALID_ARG'],
])
const isWireWord = (word) => WIRE_WORDS.has(word) || /^PAYWIRE_[A-Z0-9_]+$/.test(word)
/**
 * Capitals are also the wire's (`GET_TRANS_STATUS`, `HQ_OK_PAID`, `USD`, `POST`): a SCREAMING_SNAKE
 * name is taken for a paywire constant when it starts or ends like an exported one (`SIMULATOR_…`,
 * `…_FIELDS`, `…_MS`), so a renamed or misspelt constant fails and a new wire value does not.
 */
const exportedConstants = [...allExports.keys()].filter((name) => /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(name))
const constantHeads = new Set(exportedConstants.map((name) => name.split('_')[0]))
const constantTails = new Set(exportedConstants.map((name) => name.split('_').at(-1)))
const looksLikeConstant = (word) =>
  word.includes('_') && (constantHeads.has(word.split('_')[0]) || constantTails.has(word.split('_').at(-1)))
/** Bare calls that are not paywire functions. */
const FOREIGN_CALLS = new Set([
  ...['require', 'import', 'fetch', 'setTimeout', 'expect'],
  // the signature's notation: sha1(md5(UPPER(…))), PHP's strtoupper()
  ...['sha1', 'md5', 'sha256', 'strtoupper', 'mb_strtoupper'],
  // pino's child logger (how paywire recognises a pino-style logger)
  'child',
  // Fastify
  'removeAllContentTypeParsers',
  'addContentTypeParser',
  // node:http, and a PostgreSQL function the reconciliation guide cites
  'createServer',
  'statement_timestamp',
])

/** OpenTelemetry semantic-convention attribute names (`error.type`), which read like member chains. */
const SEMCONV_ATTRIBUTES = new Set(['error.type', 'server.address', 'server.port', 'http.request.method'])

// ─── Reading the documentation ───────────────────────────────────────────────────────────────────

const sources = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
  ...packageNames.map((name) => `packages/${name}/README.md`),
].filter((source) => existsSync(join(root, source)))

const counts = { entries: 0, imports: 0, types: 0, constants: 0, functions: 0, members: 0, allowlisted: 0 }
const problems = []

const IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"](@paywire\/[^'"]+)['"]/g
const ENTRY = /@paywire\/[a-z-]+(?:\/[a-z-]+)*/g
const PASCAL = /^[A-Z][a-z0-9]+(?:[A-Z0-9][a-z0-9]*)*$/
const SCREAMING = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{2,}$/

function report(where, message) {
  problems.push(`${where}: ${message}`)
}

function checkImports(text, where) {
  for (const match of text.matchAll(IMPORT)) {
    const entry = match[2]
    const names = exportsOf.get(entry)
    if (!names) {
      report(where, `imports from ${entry}, which is not a paywire entry (${[...entryFiles.keys()].join(', ')})`)
      continue
    }
    for (const raw of match[1].split(',')) {
      const name = raw
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim()
      if (!name) continue
      counts.imports++
      if (names.has(name)) continue
      const elsewhere = [...exportsOf].filter(([, n]) => n.has(name)).map(([e]) => e)
      report(
        where,
        `\`${name}\` is not exported by ${entry}${elsewhere.length ? ` (it is by ${elsewhere.join(', ')})` : ''}`,
      )
    }
  }
}

function checkEntries(text, where) {
  for (const match of text.matchAll(ENTRY)) {
    counts.entries++
    if (!entryFiles.has(match[0]) && !binaryPackages.has(match[0])) report(where, `${match[0]} is not a paywire entry`)
  }
}

function checkTypeName(name, where) {
  counts.types++
  if (!allExports.has(name)) report(where, `\`${name}\` is not exported by any paywire entry`)
}

/** `gw.s2s.captureIfPending`, `error?.reconciliation!.lookup`: every member must resolve. */
function checkChain(span, where) {
  const chain = /^([A-Za-z_$][\w$]*)((?:[?!]?\.[A-Za-z_$][\w$]*)+)/.exec(span)
  if (!chain || !(chain[1] in rootTypes)) return false
  const members = chain[2].split(/[?!]?\./).filter(Boolean)
  counts.members++
  let types = rootTypes[chain[1]]
  for (const [index, member] of members.entries()) {
    const next = types.map((type) => memberType(type, member)).filter(Boolean)
    if (next.length === 0) {
      const path = [chain[1], ...members.slice(0, index)].join('.')
      report(where, `\`${span}\`: \`${path}\` has no member \`${member}\``)
      return true
    }
    types = next
  }
  return true
}

function checkSpan(span, where) {
  checkImports(span, where)
  checkEntries(span, where)
  const code = span.trim()
  if (/\.(?:ts|mts|js|mjs|cjs|json|md)$/.test(code)) return // a file name
  if (SEMCONV_ATTRIBUTES.has(code)) {
    counts.allowlisted++
    return
  }
  if (checkChain(code, where)) return
  // `.withResponse()`, `{ maxBodyBytes }`, `{ payment_id } | { order_id }`: members of exported types.
  const members =
    /^\.([A-Za-z_$][\w$]*)\(.*\)$/.exec(code)?.slice(1) ??
    (/^\{\s*[\w$]+(?:\s*,\s*[\w$]+)*\s*\}(?:\s*\|\s*\{\s*[\w$]+(?:\s*,\s*[\w$]+)*\s*\})*$/.test(code)
      ? code.match(/[\w$]+/g)
      : undefined)
  if (members) {
    // Single lowercase words (`{ pointer, detail }`) are as often the wire's as ours: only compound
    // names (`{ maxBodyBytes }`, `{ payment_id }`) are checked.
    for (const member of members.filter((name) => /[A-Z_]/.test(name))) {
      counts.members++
      if (!memberNames.has(member)) report(where, `\`${code}\`: \`${member}\` is not a member of any exported type`)
    }
    return
  }
  // A bare call: an exported function, or a method cited without its object.
  const call = /^([a-z_$][\w$]*)\(/.exec(code)
  if (call) {
    if (FOREIGN_CALLS.has(call[1])) {
      counts.allowlisted++
      return
    }
    counts.functions++
    if (!allExports.has(call[1]) && !memberNames.has(call[1])) {
      report(where, `\`${call[1]}()\` is neither an exported function nor a method of an exported type`)
    }
    return
  }
  // Type names: `X`, `new X(…)`, `X<…>`, `X.member`, `X[]`, `X | Y | undefined`.
  const parts = code.replace(/^new\s+/, '').split(/\s*\|\s*/)
  const heads = parts.map((part) => /^([A-Za-z_$][\w$]*)(?:<.*>|\(.*\)|\[\]|\.[\w$.]+(?:\(.*\))?)?$/.exec(part))
  if (heads.some((head) => head === null)) return // prose, a message, a literal: not a name
  for (const [, name] of heads) {
    if (FOREIGN_NAMES.has(name)) counts.allowlisted++
    else if (PASCAL.test(name)) checkTypeName(name, where)
    else if (SCREAMING.test(name)) {
      if (isWireWord(name) || !looksLikeConstant(name)) counts.allowlisted++
      else {
        counts.constants++
        if (!allExports.has(name)) report(where, `\`${name}\` is not exported by any paywire entry`)
      }
    }
  }
}

for (const source of sources) {
  const lines = readFileSync(join(root, source), 'utf8').split('\n')
  let fence = null
  for (const [index, line] of lines.entries()) {
    const where = `${source}:${index + 1}`
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (opening && line.trim().startsWith(fence)) fence = null
      else {
        checkImports(line, where)
        checkEntries(line, where)
      }
      continue
    }
    if (opening) {
      fence = opening[1]
      continue
    }
    // Inline code: `…` or ``…``, one line at a time (the docs do not wrap a span).
    for (const match of line.matchAll(/(`+)([^`]+?)\1(?!`)/g)) checkSpan(match[2].replace(/\\\|/g, '|'), where)
  }
}

// ─── Verdict ─────────────────────────────────────────────────────────────────────────────────────

const exported = [...exportsOf].map(([entry, names]) => `${entry} ${names.size}`).join(', ')
console.log(`exports read: ${exported}`)
console.log(
  `${sources.length} files: ${counts.entries} entry names, ${counts.imports} import specifiers, ` +
    `${counts.types} type/class names, ${counts.constants} constants, ${counts.functions} function calls, ` +
    `${counts.members} member chains checked; ${counts.allowlisted} non-paywire names allowlisted`,
)
const empty = Object.entries(counts).filter(([kind, n]) => n === 0 && kind !== 'allowlisted')
if (empty.length > 0) {
  problems.push(`nothing checked for: ${empty.map(([kind]) => kind).join(', ')} (is the parser still right?)`)
}
if (problems.length > 0) {
  console.log(problems.join('\n'))
  console.error(`${problems.length} documentation name problem(s): each names the Markdown file and line`)
  process.exit(1)
}
console.log('every paywire name in the documentation exists')
