/** How a simulated route runs: injected failures first, then the `x-code` check, then the route. */

import { type FailNextOptions, FaultQueue } from '@paywire/core/testing'
import { http, type RequestHandler } from 'msw'
import type { SimulatorAnswers } from './answers.js'
import type { RemittanceFixtures } from './fixtures.js'
import type { SimulatorState } from './state.js'

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

/** The fault queue and the key check in front of every route. */
export class SimulatorRouting {
  readonly #faults = new FaultQueue()
  readonly #apiKey: string
  readonly #answers: SimulatorAnswers

  constructor(apiKey: string, answers: SimulatorAnswers) {
    this.#apiKey = apiKey
    this.#answers = answers
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
      const fault = this.#faults.take(url.pathname)
      if (fault?.when === 'before') return this.#answers.fault(fault)
      const answered = await this.#authorized(request, params, url, answer)
      return fault ? this.#answers.fault(fault) : answered
    })

  /** The `x-code` check (rules Authentication 1–2), then the route. */
  async #authorized(
    request: Request,
    params: Record<string, string | readonly string[] | undefined>,
    url: URL,
    answer: RouteAnswer,
  ): Promise<Response> {
    const key = request.headers.get('x-code')
    if (key === null || key === '') return this.#answers.problem(401, 'Unauthorized', 'The x-code header is missing.')
    if (key !== this.#apiKey) {
      return this.#answers.problem(401, 'Unauthorized', 'The x-code header holds an unknown API key.')
    }
    const flat: Record<string, string> = {}
    for (const [name, value] of Object.entries(params)) if (typeof value === 'string') flat[name] = value
    return answer(request, flat, url)
  }
}
