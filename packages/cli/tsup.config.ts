/**
 * The CLI's build: one ESM entry with a shebang. Each command is a separate chunk loaded only when
 * it runs, so `paywire --help` starts without the SDKs or msw. The SDKs (`@paywire/*`) are bundled
 * in: the CLI tarball then installs alone, as a development tool, whatever the project holds of them
 * (before, npm looked every one up in the registry and failed with a 404). msw, undici and zod stay
 * dependencies, installed from the registry.
 */
import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { bin: 'src/bin.ts' },
  format: ['esm'],
  dts: false,
  clean: true,
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  splitting: true,
  treeshake: true,
  tsconfig: 'tsconfig.build.json',
  banner: { js: '#!/usr/bin/env node' },
  noExternal: [/^@paywire\//],
})
