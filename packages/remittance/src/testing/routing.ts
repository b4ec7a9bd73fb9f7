/** How a simulated route runs: injected failures first, then the `x-code` check, then the route. */

import { type FailNextOptions, FaultQueue } from '@paywire/core/testing'
import { http, type RequestHandler } from 'msw'
import type { Remittance } from '../client.js'
import type { SimulatorAnswers } from './answers.js'
import type { RemittanceFixtures } from './fixtures.js'
import type { SimulatorState } from './state.js'
import { FAULT_OPERATIONS, remittanceOperationOf, strictErrors } from './strict.js'

/** What a route answers with, from the request, its path parameters and its URL. */
export type RouteAnswer = (request: Request, params: Record<string, string>, url: URL) => Response | Promise<Response>

/** Makes one msw handler of the simulator: `method` and `path` below any origin. */
export type Route = (method: 'get' | 'post' | 'put', path: string, answer: RouteAnswer) => RequestHandler

/** What the routes of every group share: the fixtures, the state, the answers, and the route maker. */
export interface SimulatorParts {
  readonly fixtures: RemittanceFixtures
  /** `record` (default) or `empty`: what a created beneficiary's 201 carries. */
  readonly createdBody: 'record' | 'empty'
  readonly state: SimulatorState
  readonly answers: SimulatorAnswers
  readonly route: Route
}

/** What every example is made from: a client on a fresh `RemittanceSimulator` (the endpoint checklist's). */
export interface ExampleSetup {
  readonly client: Remittance
}

/** The fault queue, the key check and the strict checks in front of every route. */
export class SimulatorRouting {
  readonly #faults = new FaultQueue({ operations: FAULT_OPERATIONS })
  readonly #apiKey: string
  readonly #answers: SimulatorAnswers
  readonly #lenient: boolean

  constructor(apiKey: string, answers: SimulatorAnswers, lenient = false) {
    this.#apiKey = apiKey
    this.#answers = answers
    this.#lenient = lenient
  }

  /** See `RemittanceSimulator.failNext`. */
  failNext(options: FailNextOptions): void {
    this.#faults.add(options)
  }

  clear(): void {
    this.#faults.clear()
  }

  /** Wraps a route: injected failures first, then the `x-code` check, then the route itself. */
  readonly route: Route = (method, path, answer) =>
    http[method](`*${path}`, async ({ request, params }) => {
      const url = new URL(request.url)
      const operation = remittanceOperationOf(request.method, url.pathname)
      const fault = this.#faults.take({ pathname: url.pathname, operation })
      if (fault?.when === 'before') return this.#answers.fault(fault)
      const answered = await this.#authorized(request, params, url, operation, answer)
      return fault ? this.#answers.fault(fault) : answered
    })

  /** The `x-code` check (rules Authentication 1–2), then the route. */
  async #authorized(
    request: Request,
    params: Record<string, string | readonly string[] | undefined>,
    url: URL,
    operation: string | undefined,
    answer: RouteAnswer,
  ): Promise<Response> {
    const key = request.headers.get('x-code')
    if (key === null || key === '') return this.#answers.problem(401, 'Unauthorized', 'The x-code header is missing.')
    if (key !== this.#apiKey) {
      return this.#answers.problem(401, 'Unauthorized', 'The x-code header holds an unknown API key.')
    }
    const refused = this.#lenient ? undefined : await this.#strict(request, operation)
    if (refused) return refused
    const flat: Record<string, string> = {}
    for (const [name, value] of Object.entries(params)) if (typeof value === 'string') flat[name] = value
    return answer(request, flat, url)
  }

  /**
   * The SDK's own body checks for the operation, answered as the service answers validation
   * failures (400 ProblemDetails with an `errors` map). A body that is not JSON is left to the route.
   */
  async #strict(request: Request, operation: string | undefined): Promise<Response | undefined> {
    if (request.method === 'GET' || !(request.headers.get('content-type') ?? '').includes('json')) return undefined
    let body: unknown
    try {
      body = JSON.parse(await request.clone().text())
    } catch {
      return undefined
    }
    const errors = strictErrors(operation, body)
    return Object.keys(errors).length > 0 ? this.#answers.validation(errors) : undefined
  }
}
