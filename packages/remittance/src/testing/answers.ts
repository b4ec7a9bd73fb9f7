/** How the simulated service answers: ProblemDetails refusals, validation maps, and reading a JSON body. */

import { faultAnswer, type InjectedFault } from '@paywire/core/testing'
import { HttpResponse } from 'msw'
import { type Body, type Errors, PROBLEM_TYPE, RFC, statusSection } from './rules.js'

/** The service's answers; each ProblemDetails carries a trace id of its own. */
export class SimulatorAnswers {
  #traces = 0

  /** A ProblemDetails answer (rules Errors 1, Platform 6), with `extra` members. */
  problem(status: number, title: string, detail?: string, extra: Body = {}): Response {
    const body = {
      type: `${RFC}.${status >= 500 ? '6' : '5'}.${statusSection(status)}`,
      title,
      status,
      ...(detail === undefined ? {} : { detail }),
      traceId: `00-${this.#trace()}-00`,
      ...extra,
    }
    return HttpResponse.json(body, { status, headers: { 'content-type': PROBLEM_TYPE } })
  }

  /** A 400 with the ASP.NET `errors` map, field by field. */
  validation(errors: Errors, title = 'One or more validation errors occurred.'): Response {
    return this.problem(400, title, undefined, { errors })
  }

  /** The answer of an injected failure: 502 ProblemDetails (an upstream failure) unless it says otherwise. */
  fault(fault: InjectedFault): Response {
    return faultAnswer(fault, 502, (status) => ({
      body: {
        type: `${RFC}.${status >= 500 ? '6' : '5'}.${statusSection(status)}`,
        title: 'Bad Gateway',
        status,
        detail: 'The remittance platform did not answer (simulated upstream failure).',
        traceId: `00-${this.#trace()}-00`,
      },
      contentType: PROBLEM_TYPE,
    }))
  }

  /** Reads a JSON object body, or answers the 415/400 the service would. */
  async body(request: Request): Promise<Body | Response> {
    const type = request.headers.get('content-type') ?? ''
    if (!type.includes('json'))
      return this.problem(415, 'Unsupported Media Type', `Expected JSON, got ${type || 'none'}.`)
    const text = await request.text()
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return this.validation({ $: ['The request body is not valid JSON.'] })
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return this.validation({ $: ['The request body must be a JSON object.'] })
    }
    return value as Body
  }

  #trace(): string {
    this.#traces += 1
    return `${this.#traces.toString(16).padStart(32, '0')}-${'0'.repeat(15)}1`
  }
}
