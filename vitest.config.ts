import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace.js'

export default defineConfig({
  test: {
    projects,
    reporters: ['default', './scripts/summary-reporter.ts'],
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: { 'packages/core/src/**': { lines: 90 } },
    },
  },
})
