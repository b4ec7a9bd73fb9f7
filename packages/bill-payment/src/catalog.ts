/** Catalog operations (rules Endpoints 1–4): one row per endpoint, one line per method. */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  listAnswer,
  type OperationClient,
  type OperationOptions,
  type ResultOf,
  recordAnswer,
  safe,
} from '@paywire/core'
import {
  type CatalogDisableResult,
  type CatalogEnableResult,
  type CatalogGetResult,
  type CatalogListResult,
  PRODUCT_KINDS,
  type Product,
} from './results.js'
import { type CatalogDisableParams, type CatalogEnableParams, IDEMPOTENCY, jsonObject } from './schemas.js'

const product = recordAnswer<Product>(PRODUCT_KINDS)

/**
 * The four Catalog endpoints. All `safe` to retry: reads, and enable/disable set a state
 * (repeating sets it again, rule Platform 7).
 */
const operations = {
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

/** `bills.catalog`: the payable products. Every method takes a `schema` option to check and type the answer. */
export class Catalog {
  readonly #ops: OperationClient<unknown>

  /** @internal */
  constructor(ops: OperationClient<unknown>) {
    this.#ops = ops
  }

  /** `GET /api/catalog/get-all-products`: all available catalog products (rules Endpoints 1, Platform 11). */
  list<S extends AnswerSchema | undefined = undefined>(
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CatalogListResult>> {
    return this.#ops.call(operations.list, {}, options)
  }

  /**
   * `GET /api/catalog/{id}`: one product by id (URL-encoded). The service documents no body (rule
   * Endpoints 2): an empty 200 gives `undefined`.
   */
  get<S extends AnswerSchema | undefined = undefined>(
    id: string | number,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CatalogGetResult>> {
    return this.#ops.call(operations.get, { path: { id } }, options)
  }

  /** `POST /api/catalog/enable-product`: enables a product; the body's fields are not published (rule Endpoints 10). */
  enable<S extends AnswerSchema | undefined = undefined>(
    body: CatalogEnableParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CatalogEnableResult>> {
    return this.#ops.call(operations.enable, { body }, options)
  }

  /** `POST /api/catalog/disable-product`: disables a product; the body's fields are not published (rule Endpoints 10). */
  disable<S extends AnswerSchema | undefined = undefined>(
    body: CatalogDisableParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CatalogDisableResult>> {
    return this.#ops.call(operations.disable, { body }, options)
  }
}
