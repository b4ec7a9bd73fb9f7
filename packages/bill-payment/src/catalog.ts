/** Catalog operations (spec "Endpoints", group Catalog): one row per endpoint; the methods are thin. */

import { type ApiPromise, safe } from '@paywire/core'
import type { z } from 'zod'
import type {
  BillPaymentCallOptions,
  OperationRow,
  Runner,
  RunOptions,
  WithoutSchema,
  WithSchema,
} from './operation.js'
import type {
  CatalogDisableParams,
  CatalogDisableResult,
  CatalogEnableParams,
  CatalogEnableResult,
  CatalogGetResult,
  CatalogListResult,
} from './schemas.js'

/** The four Catalog endpoints. All are `safe` to retry: reads, and enable/disable set a state (repeating sets it again). */
export const catalogOperations = {
  list: {
    name: 'catalog.list',
    method: 'GET',
    path: '/api/catalog/get-all-products',
    retry: safe,
    result: 'json',
  },
  get: {
    name: 'catalog.get',
    method: 'GET',
    path: '/api/catalog/{id}',
    pathParam: 'id',
    retry: safe,
    result: 'entity',
  },
  enable: {
    name: 'catalog.enable',
    method: 'POST',
    path: '/api/catalog/enable-product',
    bodyParam: 'body',
    retry: safe,
    result: 'json',
  },
  disable: {
    name: 'catalog.disable',
    method: 'POST',
    path: '/api/catalog/disable-product',
    bodyParam: 'body',
    retry: safe,
    result: 'json',
  },
} as const satisfies Record<string, OperationRow>

/**
 * `bills.catalog`: the payable products. Every method takes an optional `schema` (zod) to parse and
 * type the answer, or a type parameter to assert its type unchecked.
 */
export class Catalog {
  readonly #runner: Runner

  /** @internal */
  constructor(runner: Runner) {
    this.#runner = runner
  }

  /** `GET /api/catalog/get-all-products`: all available catalog products. */
  list<S extends z.ZodType>(options: BillPaymentCallOptions & WithSchema<S>): ApiPromise<z.output<S>>
  list<T = CatalogListResult>(options?: BillPaymentCallOptions & WithoutSchema): ApiPromise<T>
  list(options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(catalogOperations.list, {}, options)
  }

  /** `GET /api/catalog/{id}`: one product by id (URL-encoded). The spec documents no body: an empty 200 gives `null`. */
  get<S extends z.ZodType>(
    id: string | number,
    options: BillPaymentCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  get<T = CatalogGetResult>(id: string | number, options?: BillPaymentCallOptions & WithoutSchema): ApiPromise<T>
  get(id: string | number, options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(catalogOperations.get, { pathValue: id }, options)
  }

  /** `POST /api/catalog/enable-product`: enables a product; the body's fields are not shown in the spec. */
  enable<S extends z.ZodType>(
    body: CatalogEnableParams,
    options: BillPaymentCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  enable<T = CatalogEnableResult>(
    body: CatalogEnableParams,
    options?: BillPaymentCallOptions & WithoutSchema,
  ): ApiPromise<T>
  enable(body: CatalogEnableParams, options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(catalogOperations.enable, { body }, options)
  }

  /** `POST /api/catalog/disable-product`: disables a product; the body's fields are not shown in the spec. */
  disable<S extends z.ZodType>(
    body: CatalogDisableParams,
    options: BillPaymentCallOptions & WithSchema<S>,
  ): ApiPromise<z.output<S>>
  disable<T = CatalogDisableResult>(
    body: CatalogDisableParams,
    options?: BillPaymentCallOptions & WithoutSchema,
  ): ApiPromise<T>
  disable(body: CatalogDisableParams, options?: RunOptions): ApiPromise<unknown> {
    return this.#runner.run(catalogOperations.disable, { body }, options)
  }
}
