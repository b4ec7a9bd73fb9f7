#!/usr/bin/env node
/**
 * Fails on two shapes of source that make a package hard to read or change:
 *
 * - an import cycle among the `src/**\/*.ts` files of one package: every static `import` and
 *   `export … from` counts, type-only ones included (a type-only circle still means neither file
 *   can be read, moved or split without the other); `./x.js` resolves to `x.ts` or `x/index.ts`;
 * - a source file over 400 lines whose first 3 lines carry no `// Long: <reason>` comment: a file
 *   that long usually holds more than one job, and the exception says why it does not;
 * - a runtime dependency (package.json `dependencies`) that no `src` file imports: a merchant's
 *   install pays for it and, when pinned exactly, is held to that one version for nothing.
 *
 * Prints one line per finding (each cycle once, as a path that returns to its start) and exits 1,
 * or a summary of what it checked and exits 0.
 *
 * Run: node scripts/check-structure.mjs
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const MAX_LINES = 400
const LONG_REASON = /\/\/\s*Long:\s*\S/

/** Every `.ts` file below `dir`, sorted. */
function sourceFiles(dir) {
  const found = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path))
    else if (name.endsWith('.ts')) found.push(path)
  }
  return found
}

/** The relative specifiers a file imports or re-exports from, at its top level (type-only ones too). */
function specifiersOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const specifiers = []
  for (const statement of source.statements) {
    const from =
      ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined
    if (from && ts.isStringLiteral(from) && from.text.startsWith('.')) specifiers.push(from.text)
  }
  return specifiers
}

/** `./x.js` from `file` → the `x.ts` or `x/index.ts` it means, when that file is one of `files`. */
function resolveSpecifier(file, specifier, files) {
  const base = resolve(dirname(file), specifier.replace(/\.(js|ts)$/, ''))
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (files.has(candidate)) return candidate
  return undefined
}

/** The strongly connected components of `graph` with a cycle in them (Tarjan), each a list of files. */
function cyclicComponents(graph) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const components = []
  let next = 0
  const visit = (node) => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node)) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node), low.get(to)))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)))
    }
    if (low.get(node) !== index.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || graph.get(node).has(node)) components.push(component.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return components
}

/** One shortest cycle through the component's first file, staying inside the component. */
function cycleThrough(component, graph) {
  const inside = new Set(component)
  const start = component[0]
  const previous = new Map([[start, undefined]])
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()
    for (const to of graph.get(node)) {
      if (to === start) {
        const path = [node]
        for (let at = previous.get(node); at !== undefined; at = previous.get(at)) path.unshift(at)
        return [...path, start]
      }
      if (inside.has(to) && !previous.has(to)) {
        previous.set(to, node)
        queue.push(to)
      }
    }
  }
  return [...component, start]
}

const findings = []
let fileCount = 0
let edgeCount = 0
const packages = readdirSync(join(root, 'packages'))
  .filter((name) => existsSync(join(root, 'packages', name, 'src')))
  .sort()

for (const name of packages) {
  const src = join(root, 'packages', name, 'src')
  const files = new Set(sourceFiles(src))
  const graph = new Map()
  for (const file of files) {
    fileCount++
    const text = readFileSync(file, 'utf8')
    const shown = relative(root, file)
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (lines > MAX_LINES && !LONG_REASON.test(text.split('\n').slice(0, 3).join('\n'))) {
      findings.push(`${shown}: ${lines} lines (over ${MAX_LINES}) and no "// Long: <reason>" in its first 3 lines`)
    }
    const targets = new Set()
    for (const specifier of specifiersOf(file, text)) {
      const target = resolveSpecifier(file, specifier, files)
      if (target) targets.add(target)
    }
    edgeCount += targets.size
    graph.set(file, targets)
  }
  for (const component of cyclicComponents(graph)) {
    const cycle = cycleThrough(component, graph).map((file) => relative(src, file))
    const more = component.length > cycle.length - 1 ? ` (${component.length} files in the circle)` : ''
    findings.push(`packages/${name}/src: import cycle ${cycle.join(' → ')}${more}`)
  }
}

// Runtime dependencies no source file imports (static, dynamic or require, any subpath).
for (const name of packages) {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'))
  const src = join(root, 'packages', name, 'src')
  const text = sourceFiles(src)
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n')
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    const escaped = dependency.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    const imported = new RegExp(`(?:from|import|require)\\s*\\(?\\s*['"]${escaped}(?:/[^'"]*)?['"]`).test(text)
    if (!imported) {
      findings.push(
        `packages/${name}/package.json: dependency ${dependency} (${manifest.dependencies[dependency]}) is imported by no file of src/: drop it`,
      )
    }
  }
}

if (findings.length > 0) {
  console.log(findings.join('\n'))
  console.error(`${findings.length} structure problem(s)`)
  process.exit(1)
}
console.log(
  `${fileCount} source files in ${packages.length} packages, ${edgeCount} imports: no import cycle, ` +
    `no file over ${MAX_LINES} lines without a "// Long:" reason`,
)
