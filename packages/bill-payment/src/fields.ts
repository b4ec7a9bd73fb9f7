/**
 * The bill payment request types the service names but does not describe, typed honestly as open
 * records, and the few checks that can be made without knowing their fields (a body is a plain JSON
 * object, rule Platform 1).
 */

import type { Query } from '@paywire/core'
import { jsonObjectIssues } from '@paywire/core/engine'
import * as z from '@paywire/core/zod'

/** An object whose fields the service does not publish: every key is allowed, every value is `unknown`. */
export interface OpenRecord {
  readonly [field: string]: unknown
}

// One JSON value type across the packages: core's.
export type { JsonValue } from '@paywire/core'

/** Body of `POST /api/transactions`, executing a payment (rule Resources 3). Fields not published (rule Resources 4). */
export type ExecutePaymentRequest = OpenRecord

/** Body of `POST /api/transactions/all`, filtering transactions (rule Resources 3). Fields not published (rule Resources 4). */
export type TransactionFilter = OpenRecord

/**
 * A request schema the service defines (rule Resources 3); it publishes neither its fields nor which
 * endpoint carries it (it is likely the body of enable/disable, but that is not published).
 */
export type ClientProfileRequest = OpenRecord

/** A request schema the service defines (rule Resources 3); fields and use not published. */
export type ClientState = OpenRecord

/** Body of `POST /api/catalog/enable-product`; its fields are not published (rule Endpoints 10). */
export type CatalogEnableParams = OpenRecord
/** Body of `POST /api/catalog/disable-product`; its fields are not published (rule Endpoints 10). */
export type CatalogDisableParams = OpenRecord
/** Body of `POST /api/transactions` (`ExecutePaymentRequest`). */
export type TransactionsExecuteParams = ExecutePaymentRequest
/** Body of `POST /api/transactions/all` (`TransactionFilter`). */
export type TransactionsFilterParams = TransactionFilter
/** Query of `GET /api/transactions`; the service publishes no parameters, so any name is passed through (rule Endpoints 10). */
export type TransactionsListParams = Query

/** Both headers go on every Catalog and Transactions call (rule Authentication). */
export const CLIENT_ID_HEADER = 'X-Service-Internal-Client-Id'
export const CLIENT_SECRET_HEADER = 'X-Service-Client-Secret'
/** A header parameter of `GET /api/catalog/{id}` (rule Endpoints 9); paywire sends it on any call given a key (rule Platform 5). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'

/** Every operation can carry an `Idempotency-Key` (only `transactions.execute` generates one). */
export const IDEMPOTENCY = { header: IDEMPOTENCY_KEY_HEADER } as const

/** A body the service names but does not describe: any plain JSON object, sent as given (rule Platform 1; `root` names it in issues). */
export function jsonObject(root: string): z.ZodMiniType<OpenRecord, OpenRecord> {
  return z.custom<OpenRecord>().check(
    z.superRefine((value, ctx) => {
      for (const issue of jsonObjectIssues(value, root))
        ctx.addIssue({ code: 'custom', message: issue.message, path: [issue.path] })
    }),
  )
}
