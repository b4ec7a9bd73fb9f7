#!/usr/bin/env node
/**
 * Type-checks every ```ts block of docs/*.md, README.md and packages/*\/README.md against the
 * sources, so the code in the documentation cannot rot (the blocks come from doc-blocks.mjs, the
 * extractor check-packages.mjs also uses for the merchant project). Each block is its own module;
 * names it uses without defining them must be declared in scripts/doc-snippets/globals.d.ts. A
 * block fenced as ```ts no-check is skipped. A failure names the Markdown file and line.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { documentationSources, locateDiagnostics, tsBlocks, writeBlocks } from './doc-blocks.mjs'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
// Under examples/, so snippets resolve the packages and zod as an application would.
const out = join(root, 'examples', '.tmp', 'doc-snippets')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })

const sources = documentationSources(root)
const blocks = tsBlocks(root, sources)
const files = writeBlocks(out, blocks)

writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    extends: relative(out, join(root, 'tsconfig.base.json')),
    compilerOptions: { noEmit: true, noUnusedLocals: false, module: 'NodeNext', moduleResolution: 'NodeNext' },
    files: [relative(out, join(root, 'scripts', 'doc-snippets', 'globals.d.ts')), ...files],
  }),
)
writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module', private: true }))

try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(out, 'tsconfig.json')], { stdio: 'pipe' })
  console.log(`${files.length} documentation snippets type-check (${sources.length} files read)`)
} catch (error) {
  console.error(locateDiagnostics(error.stdout, blocks))
  console.error('documentation snippets do not type-check (each error names the Markdown file and line)')
  process.exit(1)
}
