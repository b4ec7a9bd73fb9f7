/**
 * Catalog operations (rules Endpoints 1–4): one row per endpoint, which is also its method; and the
 * product record they answer, whose fields the SDK expects as the transaction's are (see
 * resources/transactions.ts: the service documents no record fields, rules Resources 4, Platform 11).
 */

import type { ApiPromise, OperationOptions, ResponseSchema } from '@paywire/core'
import type { FieldKinds } from '@paywire/core/engine'
import { defineOperation, listAnswer, recordAnswer, resource, safe } from '@paywire/core/engine'
import { type CatalogDisableParams, type CatalogEnableParams, IDEMPOTENCY, jsonObject } from '../fields.js'

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

const product = recordAnswer<Product>(PRODUCT_KINDS)

/**
 * The Catalog endpoints, one row each; each row is also the `bills.catalog` method of its name.
 * All `safe` to retry: reads, and enable/disable set a state (repeating sets it again, rule Platform 7).
 */
export const CATALOG = {
  list: defineOperation({
    name: 'catalog.list',
    method: 'GET',
    path: '/api/catalog/get-all-products',
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: listAnswer<Product>(PRODUCT_KINDS),
  }),
  get: defineOperation({
    name: 'catalog.get',
    method: 'GET',
    path: '/api/catalog/{id}',
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: product,
  }),
  enable: defineOperation({
    name: 'catalog.enable',
    method: 'POST',
    path: '/api/catalog/enable-product',
    params: jsonObject('body'),
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: product,
  }),
  disable: defineOperation({
    name: 'catalog.disable',
    method: 'POST',
    path: '/api/catalog/disable-product',
    params: jsonObject('body'),
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: product,
  }),
}

/**
 * `bills.catalog`: the payable products, one method per endpoint; all safe to repeat. Every method
 * also takes a `schema` in its options, which checks the answer and types the result with it.
 */
export interface Catalog {
  /** `GET /api/catalog/get-all-products`: all available catalog products (rules Endpoints 1, Platform 11). */
  list(options?: OperationOptions): ApiPromise<readonly Product[] | undefined>
  list<T>(options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /**
   * `GET /api/catalog/{id}`: one product by id (URL-encoded). The service documents no body (rule
   * Endpoints 2): an empty 200 gives `undefined`.
   */
  get(id: string | number, options?: OperationOptions): ApiPromise<Product | undefined>
  get<T>(id: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `POST /api/catalog/enable-product`: enables a product; the body's fields are not published (rule Endpoints 10). */
  enable(params: CatalogEnableParams, options?: OperationOptions): ApiPromise<Product | undefined>
  enable<T>(params: CatalogEnableParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `POST /api/catalog/disable-product`: disables a product; the body's fields are not published (rule Endpoints 10). */
  disable(params: CatalogDisableParams, options?: OperationOptions): ApiPromise<Product | undefined>
  disable<T>(params: CatalogDisableParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
}

/** `Catalog` made from the rows of `CATALOG` (which must match it: see `resource`). */
export class CatalogResource extends resource<unknown, typeof CATALOG, Catalog>(CATALOG) {}

/** @deprecated Use `readonly Product[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogListResult = readonly Product[] | undefined
/** @deprecated Use `Product | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogGetResult = Product | undefined
/** @deprecated Use `Product | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogEnableResult = Product | undefined
/** @deprecated Use `Product | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type CatalogDisableResult = Product | undefined
