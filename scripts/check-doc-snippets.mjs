#!/usr/bin/env node
/**
 * Type-checks every ```ts block of docs/*.md, README.md and packages/*\/README.md, so the code in the
 * documentation cannot rot. Each block is its own module; names it uses without defining them must
 * be declared in scripts/doc-snippets/globals.d.ts. A block fenced as ```ts no-check is skipped.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
// Under examples/, so snippets resolve the packages and zod as an application would.
const out = join(root, 'examples', '.tmp', 'doc-snippets')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

const sources = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(root, 'packages')).map((p) => `packages/${p}/README.md`),
]

const files = []
for (const source of sources) {
  let text
  try {
    text = readFileSync(join(root, source), 'utf8')
  } catch {
    continue
  }
  const fence = /^```ts([^\n]*)\n([\s\S]*?)^```/gm
  let index = 0
  for (const match of text.matchAll(fence)) {
    index++
    if (match[1].includes('no-check')) continue
    const line = text.slice(0, match.index).split('\n').length
    const name = `${source.replace(/[/.]/g, '_')}_${index}.ts`
    writeFileSync(join(out, name), `// ${source}:${line}\n${match[2]}\nexport {}\n`)
    files.push({ name, source, line })
  }
}

writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    extends: relative(out, join(root, 'tsconfig.base.json')),
    compilerOptions: { noEmit: true, noUnusedLocals: false, module: 'NodeNext', moduleResolution: 'NodeNext' },
    files: [relative(out, join(root, 'scripts', 'doc-snippets', 'globals.d.ts')), ...files.map((f) => f.name)],
  }),
)
writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module', private: true }))

try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(out, 'tsconfig.json')], { stdio: 'pipe' })
  console.log(`${files.length} documentation snippets type-check (${sources.length} files read)`)
} catch (error) {
  console.error(String(error.stdout))
  console.error(`documentation snippets do not type-check; each file's first line names its source`)
  process.exit(1)
}
