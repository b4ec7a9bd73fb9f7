/**
 * The simulated catalog: products listed and fetched, enabled and disabled (the simulator's own
 * body, `{ productId }`), and one example call of each catalog endpoint (the endpoint checklist's).
 */

import type { EndpointExamples } from '@paywire/core/engine'
import { HttpResponse, http, type RequestHandler } from 'msw'
import type { CATALOG } from '../resources/catalog.js'
import type { SimulatorProduct } from './fixtures.js'
import { isRecord, problem, readJson, validation } from './problems.js'
import type { ExampleSetup, Guard } from './routing.js'

/** The products of the simulated service, by id. */
export class SimulatedCatalog {
  readonly #products = new Map<string, SimulatorProduct>()

  /** Every product (copies), in the order they were added. */
  get all(): readonly SimulatorProduct[] {
    return [...this.#products.values()].map((p) => ({ ...p }))
  }

  /** The products as payments see them (not copies: a payment reads, never writes). */
  get byId(): ReadonlyMap<string, SimulatorProduct> {
    return this.#products
  }

  /** One product by id (a copy), or `undefined`. */
  get(id: string): SimulatorProduct | undefined {
    const found = this.#products.get(id)
    return found ? { ...found } : undefined
  }

  /** Adds or replaces a product. */
  set(product: SimulatorProduct): void {
    this.#products.set(product.id, { ...product })
  }

  /** Back to `products` only. */
  reset(products: readonly Readonly<SimulatorProduct>[]): void {
    this.#products.clear()
    for (const product of products) this.set(product)
  }

  /** Simulator's own body: `{ productId }` (or `{ id }`); answers the product as it now is. */
  async toggle(request: Request, enabled: boolean): Promise<Response> {
    const body = await readJson(request)
    if (!body.ok || !isRecord(body.value)) return validation({ body: ['A JSON object is required.'] })
    const id = body.value.productId ?? body.value.id
    if (typeof id !== 'string' || id === '') return validation({ productId: ['The productId field is required.'] })
    const product = this.#products.get(id)
    if (!product) return problem(404, 'product-not-found', 'Product not found', `No product with id "${id}".`)
    product.enabled = enabled
    return HttpResponse.json({ ...product })
  }
}

/** The catalog's routes, each behind `guard`. */
export function catalogRoutes(guard: Guard, catalog: SimulatedCatalog): RequestHandler[] {
  return [
    // Listed before `{id}` so the literal path wins.
    http.get(
      '*/api/catalog/get-all-products',
      guard(async () => HttpResponse.json(catalog.all)),
    ),
    http.get(
      '*/api/catalog/:id',
      guard(async (_request, params) => {
        const found = catalog.get(params.id ?? '')
        if (!found) return problem(404, 'product-not-found', 'Product not found', `No product with id "${params.id}".`)
        return HttpResponse.json(found)
      }),
    ),
    http.post(
      '*/api/catalog/enable-product',
      guard((request) => catalog.toggle(request, true)),
    ),
    http.post(
      '*/api/catalog/disable-product',
      guard((request) => catalog.toggle(request, false)),
    ),
  ]
}

/** A call per catalog row, answered with success by the simulator's default catalog. */
export const CATALOG_EXAMPLES: EndpointExamples<typeof CATALOG, ExampleSetup> = {
  list: () => [],
  get: () => ['EDSA-PREPAID'],
  enable: () => [{ productId: 'WATER-FREETOWN' }],
  disable: () => [{ productId: 'AIRTIME-ORANGE' }],
}
