/** Catalog operations (rules Endpoints 1–4): one row per endpoint, which is also its method. */

import type { AnswerSchema, ApiPromise, OperationOptions } from '@paywire/core'
import { defineOperation, listAnswer, recordAnswer, resource, safe } from '@paywire/core/engine'
import { type CatalogDisableParams, type CatalogEnableParams, IDEMPOTENCY, jsonObject } from '../fields.js'
import { PRODUCT_KINDS, type Product } from '../results.js'

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
  list<T>(options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /**
   * `GET /api/catalog/{id}`: one product by id (URL-encoded). The service documents no body (rule
   * Endpoints 2): an empty 200 gives `undefined`.
   */
  get(id: string | number, options?: OperationOptions): ApiPromise<Product | undefined>
  get<T>(id: string | number, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `POST /api/catalog/enable-product`: enables a product; the body's fields are not published (rule Endpoints 10). */
  enable(params: CatalogEnableParams, options?: OperationOptions): ApiPromise<Product | undefined>
  enable<T>(params: CatalogEnableParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `POST /api/catalog/disable-product`: disables a product; the body's fields are not published (rule Endpoints 10). */
  disable(params: CatalogDisableParams, options?: OperationOptions): ApiPromise<Product | undefined>
  disable<T>(params: CatalogDisableParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
}

/** `Catalog` made from the rows of `CATALOG` (which must match it: see `resource`). */
export class CatalogResource extends resource<unknown, typeof CATALOG, Catalog>(CATALOG) {}
