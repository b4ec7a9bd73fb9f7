#!/usr/bin/env node
/**
 * The framework table of docs/callbacks.md (between `<!-- recipes -->` and `<!-- /recipes -->`)
 * against the recipes in examples/callbacks/: each row's first code span (the mount) is a line of
 * the recipe it links, word for word; every recipe file has a row; every recipe runs in CI (listed
 * in examples/demo.ts, or run by scripts/check-runtimes.mjs). Prints one line per problem and exits
 * 1, or a summary.
 *
 * Run: node scripts/check-recipes.mjs
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const doc = readFileSync(join(root, 'docs', 'callbacks.md'), 'utf8')
const start = doc.indexOf('<!-- recipes -->')
const end = doc.indexOf('<!-- /recipes -->')
const problems = []
if (start < 0 || end < start) problems.push('docs/callbacks.md: no <!-- recipes --> … <!-- /recipes --> table')
const rows = doc
  .slice(start, end)
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| framework') && !line.startsWith('|---'))
const recipesDir = join(root, 'examples', 'callbacks')
const demo = readFileSync(join(root, 'examples', 'demo.ts'), 'utf8')
const runtimes = readFileSync(join(root, 'scripts', 'check-runtimes.mjs'), 'utf8')
const linked = new Set()
for (const row of rows) {
  const [framework, mount, recipe] = row.split(' | ').map((cell) => cell.replace(/^\| /, '').replace(/ \|$/, ''))
  const file = /\]\(\.\.\/examples\/callbacks\/([\w-]+\.ts)\)/.exec(recipe ?? '')?.[1]
  const code = /`([^`]+)`/.exec(mount ?? '')?.[1]
  if (!file) {
    problems.push(`${framework}: no link to a recipe in examples/callbacks/`)
    continue
  }
  linked.add(file)
  let text
  try {
    text = readFileSync(join(recipesDir, file), 'utf8')
  } catch {
    problems.push(`${framework}: ${file} does not exist`)
    continue
  }
  if (!code) problems.push(`${framework}: the mount cell has no code`)
  else if (!text.includes(code)) problems.push(`${framework}: \`${code}\` is not in examples/callbacks/${file}`)
}
for (const file of readdirSync(recipesDir).filter((f) => f.endsWith('.ts') && f !== 'drive.ts')) {
  if (!linked.has(file)) problems.push(`examples/callbacks/${file}: no row in the docs/callbacks.md table`)
  const name = file.replace(/\.ts$/, '')
  if (!demo.includes(`'${name}'`) && !runtimes.includes(`examples/callbacks/\${file}`) && !runtimes.includes(file))
    problems.push(`examples/callbacks/${file}: run neither by examples/demo.ts nor by scripts/check-runtimes.mjs`)
}
if (problems.length > 0) {
  console.log(problems.join('\n'))
  console.error(`${problems.length} recipe problem(s)`)
  process.exit(1)
}
console.log(
  `${rows.length} mounts in docs/callbacks.md, each a line of its recipe; ${linked.size} recipes, each run in CI`,
)
