/** The simulated gateway's wire side: its keys and settings, the transport (faults, IP allowlist, body parsing, strict checks), the key, hash and duplicate checks, and the gateway's error answers. */

import { type Clock, systemClock } from '@paywire/core'
import {
  type FailNextOptions,
  FaultQueue,
  faultAnswer,
  type InjectedFault,
  REMOTE_ADDRESS_HEADER,
} from '@paywire/core/testing'
import { HttpResponse } from 'msw'
import { cardOperationOf, FAULT_ACTIONS, FAULT_OPERATIONS } from './operations.js'
import {
  type CardGatewaySimulatorOptions,
  HASH_INPUTS,
  normaliseIp,
  Reply,
  readPath,
  SIMULATOR_CREDENTIALS,
  SIMULATOR_DEDUP_WINDOW_MS,
  SIMULATOR_LIVE_KEYS,
  type SimulatedPayment,
  simulatorHash,
} from './rules.js'
import { strictProblems } from './strict.js'
import { strrevExpected } from './strrev.js'

/**
 * How the simulated gateway meets a request before any operation acts: the merchant account's keys
 * and signature scheme, injected faults, the IP allowlist, body parsing and the strict checks, the
 * key, hash and duplicate-order checks, and the error envelopes the gateway answers with.
 * `SimulatedGateway` adds the payments' state and lifecycle on top.
 */
export abstract class SimulatedTransport {
  readonly merchantKey: string
  readonly clientKey: string
  /**
   * The password the gateway checks requests with and signs new callbacks with. A password rotation
   * (rehearsed with `paywire sim --password-env` given twice) changes it at once for both; callbacks
   * signed before, and their redeliveries, keep the password they were signed with.
   */
  password: string
  /** The payments the gateway holds (an S2S amount's currency and the strrev hash read them). */
  abstract readonly payments: SimulatedPayment[]
  /** Settings that tests may change between calls. */
  allowedIps: readonly string[] | undefined
  legacyNotFound: boolean
  nestedValidationErrors: boolean
  /** Whether the strict checks are off (`lenient: true`): see `CardGatewaySimulatorOptions.lenient`. */
  lenient: boolean
  /** The signature scheme this simulated brand verifies and signs with. */
  readonly signature: 'seed' | 'card-md5-strrev'
  /** The simulator's clock: the duplicate window and the times it shows. */
  protected readonly clock: Clock
  readonly #options: CardGatewaySimulatorOptions
  readonly #otherKeys: ReadonlySet<string>
  readonly #seen = new Map<string, { operation: string; at: number; reply: Reply }>()
  readonly #faults = new FaultQueue({ actions: FAULT_ACTIONS, operations: FAULT_OPERATIONS })

  constructor(options: CardGatewaySimulatorOptions = {}) {
    this.#options = options
    this.merchantKey = options.merchantKey ?? SIMULATOR_CREDENTIALS.merchantKey
    this.clientKey = options.clientKey ?? SIMULATOR_CREDENTIALS.clientKey
    this.password = options.password ?? SIMULATOR_CREDENTIALS.password
    this.#otherKeys = new Set(
      options.otherEnvironmentKeys ?? [SIMULATOR_LIVE_KEYS.merchantKey, SIMULATOR_LIVE_KEYS.clientKey],
    )
    this.clock = options.clock ?? systemClock
    this.allowedIps = options.allowedIps
    this.legacyNotFound = options.legacyNotFound ?? false
    this.nestedValidationErrors = options.nestedValidationErrors ?? false
    this.lenient = options.lenient ?? false
    this.signature = options.signature ?? 'seed'
    if (this.signature !== 'seed' && this.signature !== 'card-md5-strrev') {
      throw new Error(`simulator: signature must be "seed" or "card-md5-strrev", not ${String(this.signature)}`)
    }
  }

  /**
   * The next `count` requests to `path` or below it (`/post` for S2S; default any) are answered with
   * `status` (default 500) and an `ERROR` envelope, or `body`, without acting; with `{ when: 'after' }`
   * the request is acted on first (payment booked, captured…) and its answer is lost. `action`
   * (`'CAPTURE'`, the S2S form field) or `operation` (`'s2s.capture'`, `'checkout.purchase'`: the
   * names the SDK's errors use) narrow it to those requests; an unknown one, or an action with
   * another action's operation, throws a `RangeError`.
   */
  failNext(options: FailNextOptions = {}): void {
    const { action, operation } = options
    // Each action is one operation: with another, no request could match and the fault would wait forever.
    const named = typeof action === 'string' ? cardOperationOf('/post', action) : undefined
    if (named !== undefined && operation !== undefined && named !== operation) {
      throw new RangeError(
        `failNext: action ${action} is operation ${named}, not ${String(operation)}: name one of them`,
      )
    }
    this.#faults.add(options)
  }

  protected async serve(
    request: Request,
    api: 'checkout' | 's2s',
    run: (body: Record<string, unknown>) => Reply,
  ): Promise<Response> {
    const pathname = new URL(request.url).pathname
    const text = await request.text()
    const type = request.headers.get('content-type') ?? ''
    const form = api === 's2s' && type.startsWith('application/x-www-form-urlencoded')
    // The last `action` of the form, as the operation reads it (`Object.fromEntries` keeps the last
    // of a repeated field): a fault must name the request by what it is acted on as.
    const action = form ? new URLSearchParams(text).getAll('action').at(-1) : undefined
    const fault = this.#faults.take({ pathname, action, operation: cardOperationOf(pathname, action) })
    if (fault?.when === 'before') return this.#faultAnswer(fault)
    const reply = this.#handle(request, api, type, text, run)
    if (fault) return this.#faultAnswer(fault)
    return HttpResponse.json(reply.body, { status: reply.status })
  }

  #faultAnswer(fault: InjectedFault): Response {
    return faultAnswer(fault, 500, (status) => ({
      body: {
        result: 'ERROR',
        error_code: 0,
        error_message: `Injected fault: the simulator was told to answer ${status}.`,
      },
      contentType: 'application/json',
    }))
  }

  #handle(
    request: Request,
    api: 'checkout' | 's2s',
    type: string,
    text: string,
    run: (body: Record<string, unknown>) => Reply,
  ): Reply {
    const address = normaliseIp(request.headers.get(REMOTE_ADDRESS_HEADER) ?? '')
    if (this.allowedIps && !this.allowedIps.map(normaliseIp).includes(address)) {
      return this.error(api, 100000, 'Request from this ip is not allowed.')
    }
    if (api === 's2s') {
      // S2S CARD is form-only: a JSON body is an unknown route (rule Platform 13).
      if (!type.startsWith('application/x-www-form-urlencoded')) return this.route()
      return this.#strict(api, Object.fromEntries(new URLSearchParams(text)), run)
    }
    if (!type.startsWith('application/json')) return this.invalid(api, ['body: JSON expected.'])
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return this.invalid(api, ['body: Invalid JSON.'])
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return this.invalid(api, ['body: Object expected.'])
    return this.#strict(api, body as Record<string, unknown>, run)
  }

  /** The strict checks (unless `lenient`), answered as the gateway answers any validation failure, then the operation. */
  #strict(
    api: 'checkout' | 's2s',
    body: Record<string, unknown>,
    run: (body: Record<string, unknown>) => Reply,
  ): Reply {
    // An S2S amount is written in the currency of the payment it acts on.
    const transId = api === 's2s' && typeof body['trans_id'] === 'string' ? body['trans_id'] : undefined
    const currency = this.payments.find((p) => transId !== undefined && p.trans_id === transId)?.currency
    const problems = this.lenient ? [] : strictProblems(body, currency)
    return problems.length > 0 ? this.invalid(api, problems) : run(body)
  }

  protected error(api: 'checkout' | 's2s', code: number, message: string, errors?: unknown[]): Reply {
    const nested = api === 'checkout' && this.nestedValidationErrors && (code === 100000 || code === 101000)
    if (nested) {
      const field = /hash/i.test(message) ? 'hash: ' : ''
      const inner = [{ error_code: code, error_message: `${field}${message}${message.endsWith('.') ? '' : '.'}` }]
      return new Reply(400, {
        result: 'ERROR',
        error_code: 0,
        error_message: 'Request data is invalid.',
        errors: [...inner, ...(errors ?? [])],
      })
    }
    return new Reply(400, {
      result: 'ERROR',
      error_code: code,
      error_message: message,
      ...(errors ? { errors } : {}),
    })
  }

  protected invalid(api: 'checkout' | 's2s', problems: readonly string[]): Reply {
    return this.error(
      api,
      100000,
      'Request data is invalid.',
      problems.map((p) => ({ error_code: 100000, error_message: p })),
    )
  }

  protected route(): Reply {
    return new Reply(404, { result: 'ERROR', error_code: 0, error_message: 'Route or parameters is not supported' })
  }

  /** Key checks shared by both interfaces (rules Authentication 1, 3). */
  protected checkKey(api: 'checkout' | 's2s', name: string, value: unknown, expected: string): Reply | undefined {
    if (typeof value !== 'string' || value === '')
      return this.invalid(api, [`${name}: This value should not be blank.`])
    if (this.#otherKeys.has(value)) return this.error(api, 220002, 'Use merchant test key.')
    if (value !== expected) return this.invalid(api, [`${name}: Merchant not found.`])
    return undefined
  }

  protected missing(body: Record<string, unknown>, names: readonly string[]): string[] {
    return names
      .filter((name) => {
        const value = readPath(body, name)
        return value === undefined || value === ''
      })
      .map((name) => `${name}: This value should not be blank.`)
  }

  protected checkHash(api: 'checkout' | 's2s', key: string, body: Record<string, unknown>): Reply | undefined {
    if (api === 's2s' && this.signature === 'card-md5-strrev') {
      const expected = strrevExpected(key, body, this.payments, this.password)
      return expected !== undefined && body['hash'] === expected
        ? undefined
        : this.error(api, 100000, 'Hash is not valid')
    }
    const names = this.#options.hashInputs?.[key] ?? HASH_INPUTS[key] ?? []
    const expected = simulatorHash(
      names.map((name) => readPath(body, name) ?? ''),
      this.password,
      this.#options.digest,
    )
    return body['hash'] === expected ? undefined : this.error(api, 100000, 'Hash is not valid')
  }

  /**
   * The 15 s duplicate window (rule Limits 1), per merchant and order_id, matched on the operation:
   * the same operation repeated inside the window gets its first answer again; after the window, or
   * from any other operation at any time, reusing the order_id is refused with 100000
   * `order_id: Duplicate payment.` An order_id is one payment attempt, so a RECURRING_SALE or a
   * credit is never answered from a purchase's cache (nor the other way round).
   */
  protected dedup(api: 'checkout' | 's2s', operation: string, orderId: string, execute: () => Reply): Reply {
    const key = `${this.merchantKey}|${orderId}`
    const seen = this.#seen.get(key)
    const now = this.clock.now()
    if (seen) {
      if (seen.operation === operation && now - seen.at < SIMULATOR_DEDUP_WINDOW_MS) return seen.reply
      return this.error(api, 100000, 'order_id: Duplicate payment.')
    }
    const reply = execute()
    this.#seen.set(key, { operation, at: now, reply })
    return reply
  }

  protected notFound(api: 'checkout' | 's2s', message: string): Reply {
    return this.error(api, this.legacyNotFound ? 100000 : 101000, message)
  }
}
