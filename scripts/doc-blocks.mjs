/**
 * The ```ts blocks of Markdown files, as modules a TypeScript project can compile: shared by
 * check-doc-snippets.mjs (the repository's docs against the sources) and check-packages.mjs (the
 * guides in a merchant project built from the tarballs). A block fenced ```ts no-check is skipped.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Every Markdown file whose ```ts blocks the docs check compiles, relative to the repository root. */
export function documentationSources(root) {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
    ...readdirSync(join(root, 'packages'))
      .sort()
      .map((p) => `packages/${p}/README.md`),
  ].filter((source) => existsSync(join(root, source)))
}

/** The guides a merchant copies from: the README and the getting-started pages. */
export function guideSources(root) {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => /^getting-started-.*\.md$/.test(f))
      .sort()
      .map((f) => `docs/${f}`),
  ].filter((source) => existsSync(join(root, source)))
}

/**
 * The checked ```ts blocks of `sources`: `{ source, line, name, code }`, where `line` is the line of
 * the opening fence in `source` and `name` a file name unique across all sources.
 */
export function tsBlocks(root, sources) {
  const blocks = []
  for (const source of sources) {
    const text = readFileSync(join(root, source), 'utf8')
    let index = 0
    for (const match of text.matchAll(/^```ts([^\n]*)\n([\s\S]*?)^```/gm)) {
      index++
      if (match[1].includes('no-check')) continue
      const line = text.slice(0, match.index).split('\n').length
      blocks.push({ source, line, name: `${source.replace(/[/.]/g, '_')}_${index}.ts`, code: match[2] })
    }
  }
  return blocks
}

/**
 * Writes each block into `dir` as its own module. The first line names the source, so line N of
 * the file is line `block.line + N - 1` of the Markdown file (see `locateDiagnostics`).
 */
export function writeBlocks(dir, blocks) {
  for (const block of blocks) {
    writeFileSync(join(dir, block.name), `// ${block.source}:${block.line}\n${block.code}\nexport {}\n`)
  }
  return blocks.map((block) => block.name)
}

/**
 * Rewrites tsc's `<block file>(line,col): error …` lines as `<source>.md:<line>:<col>: error …`,
 * so a failure names the Markdown line to fix; other lines are kept as they are.
 */
export function locateDiagnostics(output, blocks) {
  const byName = new Map(blocks.map((block) => [block.name, block]))
  return String(output).replace(/^(?:.*[/\\])?([^/\\\s(]+\.ts)\((\d+),(\d+)\)/gm, (whole, name, line, column) => {
    const block = byName.get(name)
    return block ? `${block.source}:${block.line + Number(line) - 1}:${column}` : whole
  })
}
