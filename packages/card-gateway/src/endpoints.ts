/** Every endpoint of the card gateway client, by the client property that holds its methods, and what is derived from them. */

import { CHECKOUT } from './resources/checkout.js'
import { S2S } from './resources/s2s.js'
import type { SignedOperation, SignedRow } from './signing/signature.js'

/** `gw.<group>.<method>` is the row `ENDPOINTS[group][method]`: the client and its tests read this table. */
export const ENDPOINTS = { checkout: CHECKOUT, s2s: S2S } as const

type Endpoints = typeof ENDPOINTS

/** Operation names (`group.method`, one per row of `ENDPOINTS`), as the tables make them. */
export type OperationNames = {
  [G in keyof Endpoints]: `${G}.${keyof Endpoints[G] & string}`
}[keyof Endpoints]

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: OperationNames
/** Operation names (`group.method`, one per row of `ENDPOINTS`), as used in errors, hooks and the `hashInputs` option. */
export type CardGatewayOperation =
  | 'checkout.purchase'
  | 'checkout.credit'
  | 'checkout.status'
  | 's2s.getTransStatus'
  | 's2s.getTransStatusByOrder'
  | 's2s.capture'
  | 's2s.void'
  | 's2s.creditVoid'
  | 's2s.recurringSale'
  | 's2s.createSchedule'
  | 's2s.deleteSchedule'
  | 's2s.updateSchedule'

/** The row an operation name stands for. */
type RowOf<Op extends OperationNames> = Op extends `${infer G extends keyof Endpoints}.${infer M}`
  ? Endpoints[G][M & keyof Endpoints[G]]
  : never

/** One entry of `SIGNED_OPERATIONS`: the row's `action` and hash inputs, as literal as the row writes them. */
type SignedEntry<R> = R extends SignedRow<infer A, infer H> ? { readonly action: A; readonly inputs: H } : never

/**
 * Every card operation's action and default hash inputs (rules Authentication 5, Platform 4 and 7),
 * read from the rows, for the client and for tools (`paywire sign`). The client's `hashInputs`
 * option overrides an entry; `null` (CREATE_SCHEDULE) is not published, so the SDK never guesses it.
 */
// Typed by the written-out interface (what the `.d.ts` shows), which the rows' own type must fit.
export const SIGNED_OPERATIONS: SignedOperations = signedOperationsOf(ENDPOINTS) as SignedOperationsOfRows

/** Each operation's entry of `SIGNED_OPERATIONS`, as the rows make it. */
export type SignedOperationsOfRows = { readonly [Op in OperationNames]: SignedEntry<RowOf<Op>> }

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: SignedOperationsOfRows
/** The type of `SIGNED_OPERATIONS`: each operation's action and hash inputs, as literal as its row writes them. */
export interface SignedOperations {
  readonly 'checkout.purchase': {
    readonly action: undefined
    readonly inputs: readonly ['order.number', 'order.amount', 'order.currency', 'order.description']
  }
  readonly 'checkout.credit': {
    readonly action: undefined
    readonly inputs: readonly ['order_id', 'order_amount', 'order_currency', 'order_description']
  }
  readonly 'checkout.status': {
    readonly action: undefined
    readonly inputs: readonly ['payment_id', 'order_id']
  }
  readonly 's2s.getTransStatus': {
    readonly action: 'GET_TRANS_STATUS'
    readonly inputs: readonly ['trans_id']
  }
  readonly 's2s.getTransStatusByOrder': {
    readonly action: 'GET_TRANS_STATUS_BY_ORDER'
    readonly inputs: readonly ['order_id']
  }
  readonly 's2s.capture': {
    readonly action: 'CAPTURE'
    readonly inputs: readonly ['trans_id']
  }
  readonly 's2s.void': {
    readonly action: 'VOID'
    readonly inputs: readonly ['trans_id']
  }
  readonly 's2s.creditVoid': {
    readonly action: 'CREDITVOID'
    readonly inputs: readonly ['trans_id']
  }
  readonly 's2s.recurringSale': {
    readonly action: 'RECURRING_SALE'
    readonly inputs: readonly ['order_id']
  }
  readonly 's2s.createSchedule': {
    readonly action: 'CREATE_SCHEDULE'
    readonly inputs: null
  }
  readonly 's2s.deleteSchedule': {
    readonly action: 'DELETE_SCHEDULE'
    readonly inputs: readonly ['schedule_id']
  }
  readonly 's2s.updateSchedule': {
    readonly action: 'UPDATE_SCHEDULE'
    readonly inputs: readonly ['schedule_id']
  }
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
