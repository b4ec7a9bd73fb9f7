import { defineProject } from 'vitest/config'
import { alias } from '../../vitest.shared.js'

export default defineProject({
  resolve: { alias },
  test: {
    name: 'reliability',
    include: ['**/*.test.ts'],
    testTimeout: 60_000,
    // load.test.ts measures the heap after a forced GC.
    execArgv: ['--expose-gc'],
  },
})
