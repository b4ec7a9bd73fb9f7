/**
 * The shared build (../../tsup.base.ts) for the main entry only: this package has no `./testing`
 * entry, so the base's testing entry and its msw-front writer are left out.
 */
import type { Options } from 'tsup'
import base from '../../tsup.base.js'

const shared = base as Options

export default {
  ...shared,
  entry: { index: 'src/index.ts' },
  dts: { entry: { index: 'src/index.ts' } },
  onSuccess: undefined,
} satisfies Options
