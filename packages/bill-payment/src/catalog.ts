/** Catalog operations (rules Endpoints 1–4): one row per endpoint, which is also its method. */

import { defineOperation, listAnswer, recordAnswer, resource, safe } from '@paywire/core/engine'
import { PRODUCT_KINDS, type Product } from './results.js'
import { IDEMPOTENCY, jsonObject } from './schemas.js'

const product = recordAnswer<Product>(PRODUCT_KINDS)

/**
 * The Catalog endpoints, one row each; each row is also the `bills.catalog` method of its name.
 * All `safe` to retry: reads, and enable/disable set a state (repeating sets it again, rule Platform 7).
 */
export const CATALOG = {
  /** `GET /api/catalog/get-all-products`: all available catalog products (rules Endpoints 1, Platform 11). */
  list: defineOperation({
    name: 'catalog.list',
    method: 'GET',
    path: '/api/catalog/get-all-products',
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: listAnswer<Product>(PRODUCT_KINDS),
  }),
  /**
   * `GET /api/catalog/{id}`: one product by id (URL-encoded). The service documents no body (rule
   * Endpoints 2): an empty 200 gives `undefined`.
   */
  get: defineOperation({
    name: 'catalog.get',
    method: 'GET',
    path: '/api/catalog/{id}',
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: product,
  }),
  /** `POST /api/catalog/enable-product`: enables a product; the body's fields are not published (rule Endpoints 10). */
  enable: defineOperation({
    name: 'catalog.enable',
    method: 'POST',
    path: '/api/catalog/enable-product',
    params: jsonObject('body'),
    retry: safe,
    idempotency: IDEMPOTENCY,
    decode: product,
  }),
  /** `POST /api/catalog/disable-product`: disables a product; the body's fields are not published (rule Endpoints 10). */
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

/** `bills.catalog`: the payable products. Every method takes a `schema` option to check and type the answer. */
export class Catalog extends resource<unknown, typeof CATALOG>(CATALOG) {}
