/**
 * The result types of every bill payment operation, and the field kinds their decoders check. The
 * service documents no record fields and no response body (rules Resources 4, Endpoints 10), and
 * nothing public is known about it, so each type names the fields the SDK expects (rules Platform
 * 11–12: assumptions, and what the package's simulator answers) as optional members, plus an open
 * record for the rest. A field's JSON kind follows rule Platform 10: identifiers, amounts, dates and
 * enumerated values may be strings or numbers, and any field may be `null`. The decoders check those
 * kinds on arrival (rule Platform 9); pass a `schema` to check and type an answer of another shape.
 */

import type { FieldKinds } from '@paywire/core/engine'

/** A catalog product, addressed by `id` (rules Resources 1, Platform 11). */
export interface Product {
  /** The product's id, as `catalog.get(id)` and a payment take it (rule Resources 1). */
  readonly id?: string | number | null
  /** The product's name, for people. */
  readonly name?: string | null
  /** What kind of bill it pays (`electricity`, `airtime`, `water`…). */
  readonly category?: string | null
  /** The currency its payments are in, ISO 4217 (`SLE`). */
  readonly currency?: string | null
  /** The smallest amount a payment of this product may have. */
  readonly minAmount?: string | number | null
  /** The largest amount a payment of this product may have. */
  readonly maxAmount?: string | number | null
  /** Whether payments are accepted: `catalog.enable` and `catalog.disable` set it (rule States). */
  readonly enabled?: boolean | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const PRODUCT_KINDS: FieldKinds<Product> = {
  id: 'string or number',
  name: 'string',
  category: 'string',
  currency: 'string',
  minAmount: 'string or number',
  maxAmount: 'string or number',
  enabled: 'boolean',
}

/** A payment transaction, addressed by `transReference` (rules Resources 2, Platform 12). */
export interface Transaction {
  /** The transaction's reference: pass it to `transactions.get` (rule Resources 2). */
  readonly transReference?: string | number | null
  /** The product paid (`Product.id`). */
  readonly productId?: string | number | null
  /** The amount paid, in `currency`. */
  readonly amount?: string | number | null
  /** The currency of `amount`, ISO 4217. */
  readonly currency?: string | null
  /** Your reference of the bill (a meter, an account, a phone number), as sent. */
  readonly customerReference?: string | number | null
  /** The transaction's state, e.g. `SUCCESSFUL` (rule States: the service publishes no states). */
  readonly status?: string | number | null
  /** When the payment was made: an ISO 8601 date-time, or a number of milliseconds since 1970. */
  readonly createdAt?: string | number | null
  /** The `Idempotency-Key` the payment was sent with (rule Platform 5). */
  readonly idempotencyKey?: string | null
  /** Members the SDK does not know of, as the service sent them (the payment request's other fields, say). */
  readonly [field: string]: unknown
}

export const TRANSACTION_KINDS: FieldKinds<Transaction> = {
  transReference: 'string or number',
  productId: 'string or number',
  amount: 'string or number',
  currency: 'string',
  customerReference: 'string or number',
  status: 'string or number',
  createdAt: 'string or number',
  idempotencyKey: 'string',
}

/** @deprecated Use `readonly Product[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogListResult = readonly Product[] | undefined
/** @deprecated Use `Product | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogGetResult = Product | undefined
/** @deprecated Use `Product | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogEnableResult = Product | undefined
/** @deprecated Use `Product | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogDisableResult = Product | undefined
/** @deprecated Use `readonly Transaction[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsListResult = readonly Transaction[] | undefined
/** @deprecated Use `Transaction | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsExecuteResult = Transaction | undefined
/** @deprecated Use `Transaction`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsGetResult = Transaction
/** @deprecated Use `readonly Transaction[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsFilterResult = readonly Transaction[] | undefined
