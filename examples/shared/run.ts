/** Small helpers the examples share: printing a step, and running a file when it is executed directly. */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'

/** Prints one step of an example: what was called with which fields, and what came back. */
export function show(label: string, value?: unknown): void {
  const text = value === undefined ? '' : ` ${inspect(value, { depth: 4, breakLength: 160, compact: 6 })}`
  console.log(`  ${label}${text}${pendingNote(value)}`)
}

/**
 * A card payment that is `pending` (S2S: `PENDING`) after the payer paid is authorised, not
 * captured: the money is held until CAPTURE (or released by VOID). The transcript says so wherever
 * it shows that status, so "pending" is not read as "the payer has not paid yet".
 */
function pendingNote(value: unknown): string {
  const status =
    typeof value === 'object' && value !== null && 'status' in value ? (value as { status: unknown }).status : value
  if (typeof status !== 'string' || status.toLowerCase() !== 'pending') return ''
  if (pendingExplained) return ' (authorised, not captured)'
  pendingExplained = true
  return ' (pending = authorised, not captured: the payer paid, the money is held until CAPTURE takes it or VOID releases it)'
}
let pendingExplained = false

/** Runs `main` when this file is the program (`tsx examples/x/y.ts`), not when the demo imports it. */
export function runIfMain(moduleUrl: string, main: () => Promise<void>): void {
  const program = process.argv[1]
  if (!program || realpathSync(program) !== realpathSync(fileURLToPath(moduleUrl))) return
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}

/** Fails an example whose outcome is not the one it demonstrates. */
export function expectThat(condition: boolean, what: string): void {
  if (!condition) throw new Error(`example did not end as expected: ${what}`)
}
