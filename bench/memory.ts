/**
 * Heap growth over a long run: a child process started with `--expose-gc` makes `calls` S2S status
 * calls through one `CardGateway` against the bench server, forcing GC before and after.
 */

import { fileURLToPath } from 'node:url'
import { CardGateway } from '@paywire/card-gateway'
import { firstMessage, forkTs } from './child.js'
import { CREDENTIALS, S2S_PARAMS } from './requests.js'

export interface MemoryResult {
  readonly calls: number
  readonly concurrency: number
  /** Heap used after forced GC, MB: after warm-up, then after each quarter of the run. */
  readonly heapMb: readonly number[]
  readonly beforeMb: number
  readonly afterMb: number
  readonly growthMb: number
  readonly rssAfterMb: number
}

const MB = 1024 * 1024

function heapAfterGc(gc: () => void): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed / MB
}

async function drive(call: () => Promise<unknown>, count: number, concurrency: number): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++
      await call()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/** Child side. */
async function run(baseUrl: string, calls: number, concurrency: number): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('memory.ts needs node --expose-gc')
  const { merchantKey, clientKey, password } = CREDENTIALS
  const gw = new CardGateway({ checkoutUrl: baseUrl, s2sUrl: baseUrl, merchantKey, clientKey, password })
  const call = () => gw.s2s.getTransStatus(S2S_PARAMS)
  await drive(call, Math.min(5_000, Math.ceil(calls / 10)), concurrency)
  const heapMb = [heapAfterGc(gc)]
  for (let quarter = 0; quarter < 4; quarter++) {
    await drive(call, Math.ceil(calls / 4), concurrency)
    heapMb.push(heapAfterGc(gc))
  }
  await gw.close()
  const beforeMb = heapMb[0] as number
  const afterMb = heapMb[4] as number
  return {
    calls,
    concurrency,
    heapMb,
    beforeMb,
    afterMb,
    growthMb: afterMb - beforeMb,
    rssAfterMb: process.memoryUsage().rss / MB,
  }
}

/** Parent side: runs the measurement in a fresh `--expose-gc` child. */
export async function measureMemory(baseUrl: string, calls: number, concurrency: number): Promise<MemoryResult> {
  const child = forkTs(fileURLToPath(import.meta.url), ['--expose-gc'], [baseUrl, String(calls), String(concurrency)])
  const message = (await firstMessage(child)) as { result?: MemoryResult; error?: string }
  if (message.error !== undefined || message.result === undefined)
    throw new Error(`memory run failed: ${message.error}`)
  return message.result
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const [baseUrl = '', calls = '0', concurrency = '16'] = process.argv.slice(2)
  run(baseUrl, Number(calls), Number(concurrency)).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (error: unknown) => process.send?.({ error: String(error) }, () => process.exit(1)),
  )
}
