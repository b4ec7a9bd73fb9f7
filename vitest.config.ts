import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import type { Reporter } from 'vitest/node'
import { projects } from './vitest.workspace.js'

interface Totals {
  readonly covered: number
  readonly total: number
  readonly pct: number
}

/** The part of istanbul's coverage map this summary reads. */
interface CoverageMap {
  getCoverageSummary(): Record<'statements' | 'branches' | 'functions' | 'lines', Totals>
}

/**
 * Coverage in one block, printed as soon as it is computed: vitest reports coverage after the test
 * run's last reporter hook, so a console coverage reporter would print below the closing
 * `N passed, N failed, N skipped` line of scripts/summary-reporter.ts. The full report goes to disk
 * (coverage/index.html, coverage/coverage-summary.json).
 */
class CoverageSummary implements Reporter {
  onCoverage(coverage: unknown): void {
    const map = coverage as Partial<CoverageMap> | undefined
    if (typeof map?.getCoverageSummary !== 'function') return
    const summary = map.getCoverageSummary()
    const kinds = ['statements', 'branches', 'functions', 'lines'] as const
    const parts = kinds.map((kind) => `${kind} ${summary[kind].pct}% (${summary[kind].covered}/${summary[kind].total})`)
    process.stdout.write(`\nCoverage of packages/*/src: ${parts.join(', ')}\nFull report: coverage/index.html\n`)
  }
}

export default defineConfig({
  test: {
    projects,
    // Two test files per core: most of a file's time is spent waiting on sockets, child processes,
    // and the Redis and PostgreSQL servers it starts, not on the CPU. Vitest's default (one per core,
    // less one) ran a single file at a time on two cores: 497 s for the suite, 205 s with four at once
    // (six: 220 s).
    maxWorkers: Math.max(2, availableParallelism() * 2),
    reporters: ['default', new CoverageSummary(), './scripts/summary-reporter.ts'],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      // The CLI's tests spawn the binary: its code runs in child processes, out of this report's reach.
      exclude: ['packages/cli/src/**'],
      // Nothing on the console: CoverageSummary prints the totals before the closing summary line.
      reporter: ['html', 'json-summary'],
      thresholds: { 'packages/core/src/**': { lines: 90 } },
    },
  },
})
