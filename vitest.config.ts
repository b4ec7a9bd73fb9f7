import { defineConfig } from 'vitest/config'
import { projects } from './vitest.workspace.js'

export default defineConfig({
  test: {
    projects,
    coverage: {
      provider: 'v8',
      include: ['packages/*/src/**/*.ts'],
      reporter: ['text-summary', 'text'],
    },
  },
})
