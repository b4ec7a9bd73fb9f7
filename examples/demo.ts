/**
 * The demo: runs every example against the embedded simulators (or your sandboxes, when the
 * PAYWIRE_* variables are set) and prints a transcript. Exits 0 only when every example ends as expected.
 *
 * Run: pnpm demo
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'

const EXAMPLES: Record<string, readonly string[]> = {
  'card-gateway': [
    'purchase-and-status',
    's2s-status',
    'capture-flow',
    'reconcile-capture',
    'void-and-creditvoid',
    'credit',
    'recurring-sale',
    'schedules',
    'callback-server',
    'callback-express',
    'follow-payments',
    'callback-alerts',
    'error-handling',
  ],
  // One recipe per framework, each answering signed callbacks from the simulator (Bun and the Worker
  // run on their own runtimes in scripts/check-runtimes.mjs).
  callbacks: ['node-http', 'express', 'fastify', 'hono-node', 'next-route', 'lambda'],
  remittance: ['beneficiaries', 'rates', 'mobile-transfer', 'cash-and-bank', 'problem-details'],
  'bill-payment': ['pay-a-bill', 'enable-disable'],
  redis: ['callback-two-instances', 'crash-and-reconcile'],
  observability: ['otel-spans'],
}

/** The heading of a folder whose name is not its package's. */
const HEADINGS: Record<string, string> = { observability: 'otel', callbacks: 'card-gateway callback recipes' }

const SANDBOX_VARIABLES: Record<string, readonly string[]> = {
  'card-gateway': [
    'PAYWIRE_CARD_CHECKOUT_URL',
    'PAYWIRE_CARD_S2S_URL',
    'PAYWIRE_CARD_MERCHANT_KEY',
    'PAYWIRE_CARD_CLIENT_KEY',
    'PAYWIRE_CARD_PASSWORD',
  ],
  remittance: ['PAYWIRE_REMIT_BASE_URL', 'PAYWIRE_REMIT_API_KEY'],
  'bill-payment': ['PAYWIRE_BILLS_BASE_URL', 'PAYWIRE_BILLS_CLIENT_ID', 'PAYWIRE_BILLS_CLIENT_SECRET'],
  redis: ['PAYWIRE_REDIS_URL'],
}

/**
 * The first paragraph of the example's header comment (what it shows), as whole sentences: the
 * comment's lines up to its first blank line, joined, then wrapped for the terminal.
 */
function summaryOf(file: URL): string[] {
  const header = /^\/\*\*([\s\S]*?)\*\//m.exec(readFileSync(file, 'utf8'))?.[1] ?? ''
  const lines = header.split('\n').map((line) => line.replace(/^\s*\*\s?/, '').trim())
  const start = lines.findIndex((line) => line !== '')
  const end = lines.indexOf('', start)
  const paragraph = lines.slice(start, end === -1 ? undefined : end).join(' ')
  return wrap(paragraph, 100)
}

/** Splits text at spaces into lines of at most `width` characters (a longer word gets its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}

/** Shows which variables are set without showing a value: secrets stay masked. */
function target(pkg: string): string {
  const names = SANDBOX_VARIABLES[pkg] ?? []
  const set = names.filter((name) => process.env[name])
  // An example with no sandbox variables always runs on the embedded simulator (it injects faults there).
  if (names.length === 0 || set.length < names.length) return 'embedded simulator on 127.0.0.1 (no account, no network)'
  return `your sandbox (${names.map((name) => `${name}=${name.endsWith('_URL') ? process.env[name] : '[masked]'}`).join(' ')})`
}

let passed = 0
let failed = 0
for (const [pkg, names] of Object.entries(EXAMPLES)) {
  console.log(`\n━━ @paywire/${HEADINGS[pkg] ?? pkg} → ${target(pkg)}`)
  for (const name of names) {
    const file = new URL(`./${pkg}/${name}.ts`, import.meta.url)
    console.log(`\n▶ ${pkg}/${name}.ts`)
    for (const line of summaryOf(file)) console.log(`  ${line}`)
    console.log()
    const started = performance.now()
    try {
      const example = (await import(file.href)) as { main(): Promise<void> }
      await example.main()
      passed++
      console.log(`✔ ended as expected (${Math.round(performance.now() - started)} ms)`)
    } catch (error) {
      failed++
      console.log(`✘ ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    }
  }
}
console.log(`\n${passed} examples passed, ${failed} failed`)
process.exitCode = failed === 0 ? 0 : 1
