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
  tsconfig: 'tsconfig.build.json',
})
