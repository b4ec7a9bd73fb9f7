import { defineProject } from 'vitest/config'
import { alias } from '../../vitest.shared.js'

export default defineProject({
  resolve: { alias },
  test: {
    name: 'cli',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/build-bin.ts'],
    // Each test spawns the real binary (a Node process through tsx): seconds, not milliseconds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
