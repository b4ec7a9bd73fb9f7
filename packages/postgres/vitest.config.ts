import { defineProject } from 'vitest/config'
import { alias } from '../../vitest.shared.js'

export default defineProject({
  resolve: { alias },
  test: {
    name: 'postgres',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
})
