/** The one build every package uses: ESM + CJS + d.ts for `src/index.ts` and `src/testing/index.ts`. */
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  splitting: false,
  treeshake: true,
  // No `paths`: sibling packages resolve through node_modules, so d.ts files import them, not inline them.
  tsconfig: 'tsconfig.build.json',
})
