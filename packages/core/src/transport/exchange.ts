/** One exchange of an attempt on undici: where its answer had got to, and the answer read whole. */

import { PaywireError, type TimeoutPhase } from '../errors/errors.js'

/** Where an attempt's answer had got to when it failed: what `classifyFailure` and a non-2xx status read. */
export interface Exchange {
  phase: TimeoutPhase
  interimStatus: number | undefined
  status: number | undefined
  headers: Record<string, string> | undefined
}

/** Back to before the headers, for the attempt's second exchange (a lookup asked again). */
export function resetExchange(exchange: Exchange): void {
  exchange.phase = 'headers'
  exchange.status = undefined
  exchange.headers = undefined
}

/** An answer read whole. */
export interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly rawBody: string
  readonly json: unknown
}

/**
 * The answer of a failed read whose final status was not 2xx (a 304 declaring a length, a 302 cut
 * mid-body): the status decides, the body is left empty. Anything else is rethrown.
 */
export function cutAnswer(error: unknown, exchange: Exchange, abortedBy: 'timeout' | 'user' | undefined): Answer {
  const { status, headers } = exchange
  if (error instanceof PaywireError || status === undefined || !headers || abortedBy === 'user') throw error
  if (status >= 200 && status < 300) throw error
  return { status, headers, rawBody: '', json: undefined }
}
