/** Every endpoint of the card gateway client, by the client property that holds its methods, and what is derived from them. */

import { CHECKOUT } from './checkout.js'
import { S2S } from './s2s.js'
import type { SignedOperation, SignedRow } from './signature.js'

/** `gw.<group>.<method>` is the row `ENDPOINTS[group][method]`: the client and its tests read this table. */
export const ENDPOINTS = { checkout: CHECKOUT, s2s: S2S } as const

type Endpoints = typeof ENDPOINTS

/** Operation names (`group.method`, one per row of `ENDPOINTS`), as used in errors, hooks and the `hashInputs` option. */
export type CardGatewayOperation = {
  [G in keyof Endpoints]: `${G}.${keyof Endpoints[G] & string}`
}[keyof Endpoints]

/** The row an operation name stands for. */
type RowOf<Op extends CardGatewayOperation> = Op extends `${infer G extends keyof Endpoints}.${infer M}`
  ? Endpoints[G][M & keyof Endpoints[G]]
  : never

/** One entry of `SIGNED_OPERATIONS`: the row's `action` and hash inputs, as literal as the row writes them. */
type SignedEntry<R> = R extends SignedRow<infer A, infer H> ? { readonly action: A; readonly inputs: H } : never

/**
 * Every card operation's action and default hash inputs (rules Authentication 5, Platform 4 and 7),
 * read from the rows, for the client and for tools (`paywire sign`). The client's `hashInputs`
 * option overrides an entry; `null` (CREATE_SCHEDULE) is not published, so the SDK never guesses it.
 */
export const SIGNED_OPERATIONS = signedOperationsOf(ENDPOINTS) as {
  readonly [Op in CardGatewayOperation]: SignedEntry<RowOf<Op>>
}

/** The `SIGNED_OPERATIONS` of a table of groups: each row under its `group.method` name, in table order. */
function signedOperationsOf(groups: Readonly<Record<string, Readonly<Record<string, SignedRow>>>>) {
  const table: Record<string, SignedOperation> = {}
  for (const [group, rows] of Object.entries(groups)) {
    for (const [method, row] of Object.entries(rows)) {
      table[`${group}.${method}`] = Object.freeze({ action: row.action, inputs: row.hashInputs })
    }
  }
  return Object.freeze(table)
}
