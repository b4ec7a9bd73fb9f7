/** A stateful card gateway that follows every rule of the spec, served as msw handlers; its ledger records side effects. */

import { createHash, randomUUID } from 'node:crypto'
import { type Clock, systemClock } from '@paywire/core'
import {
  type FailNextOptions,
  FaultQueue,
  faultAnswer,
  type InjectedFault,
  REMOTE_ADDRESS_HEADER,
} from '@paywire/core/testing'
import { HttpResponse, http, type RequestHandler } from 'msw'

/** Credentials the simulator accepts by default (its sandbox account). */
export const SIMULATOR_CREDENTIALS = Object.freeze({
  merchantKey: 'sim-merchant-key',
  clientKey: 'sim-client-key',
  password: 'sim-password',
})

/** Keys of the other environment: sending one answers 220002 (spec Authentication 3). */
export const SIMULATOR_LIVE_KEYS = Object.freeze({ merchantKey: 'live-merchant-key', clientKey: 'live-client-key' })

/** Sandbox test cards (PLATFORM_NOTES): the expiry chooses the outcome. */
export const TEST_CARDS = Object.freeze({
  number: '4111111111111111',
  success: '01/2038',
  decline: '02/2038',
  captureFails: '03/2038',
  threeDsSuccess: '05/2038',
  threeDsDecline: '06/2038',
})

/** The simulator's dedup window (spec Limits 1). */
export const SIMULATOR_DEDUP_WINDOW_MS = 15_000

type Digest = 'md5' | 'sha256'

export interface CardGatewaySimulatorOptions {
  readonly merchantKey?: string
  readonly clientKey?: string
  readonly password?: string
  /** Keys that belong to the other environment (answer 220002). Default `SIMULATOR_LIVE_KEYS`. */
  readonly otherEnvironmentKeys?: readonly string[]
  /** Allowed caller addresses; `undefined` allows every address (spec Authentication 7). */
  readonly allowedIps?: readonly string[]
  /**
   * Time: the 15 s dedup window is measured on `clock.now()` (monotonic), ledger and payment times
   * read `clock.date()` (ms since the epoch). Default core's `systemClock`; tests pass `createTestClock()`.
   */
  readonly clock?: Clock
  readonly digest?: Digest
  /** Hash input overrides by action name, or `purchase`, `credit`, `status`. */
  readonly hashInputs?: Readonly<Record<string, readonly string[]>>
  /** Callback hash input order; default Checkout order (PLATFORM_NOTES). */
  readonly callbackFields?: readonly string[]
  /** `disabled`: 100000 Refund is not allowed; `portal-only`: 210002. Default `enabled`. */
  readonly refunds?: 'enabled' | 'disabled' | 'portal-only'
  /** Action names the routing does not support (answer 204005). */
  readonly unsupportedActions?: readonly string[]
  /** Answer not-found for transaction/order with 100000, as before release 6.7.0. */
  readonly legacyNotFound?: boolean
  /** Checkout validation failures as `error_code: 0` with the real code inside `errors[]` (PLATFORM_NOTES). */
  readonly nestedValidationErrors?: boolean
}

/** Internal payment states (spec States; Checkout status names from PLATFORM_NOTES). */
export type SimulatedPaymentStatus = 'prepare' | '3ds' | 'pending' | 'settled' | 'decline' | 'void' | 'refund'

export interface SimulatedPayment {
  readonly payment_id: string
  readonly trans_id: string
  readonly order_id: string
  readonly amount: string
  readonly currency: string
  readonly description: string
  status: SimulatedPaymentStatus
  card_token: string | undefined
  recurring_token: string | undefined
  readonly recurringInit: boolean
  captureFails: boolean
  captureOnSuccess: boolean
  declineAfter3ds: boolean
  capturedAmount: string | undefined
  readonly createdAt: number
}

export interface SimulatedSchedule {
  readonly schedule_id: string
  name: string
  interval_length: string
  interval_unit: string
  payments_count: string
}

/** One side effect, in order, for tests to inspect. */
export interface LedgerEntry {
  readonly at: number
  readonly kind:
    | 'session'
    | 'charge'
    | 'decline'
    | 'capture'
    | 'capture_declined'
    | 'void'
    | 'refund'
    | 'credit'
    | 'recurring_sale'
    | 'schedule_created'
    | 'schedule_deleted'
    | 'schedule_updated'
  readonly trans_id?: string
  readonly order_id?: string
  readonly amount?: string
  readonly schedule_id?: string
}

export interface PayOptions {
  readonly card: string
  /** `MM/YYYY`; with the test card it picks the outcome (PLATFORM_NOTES). */
  readonly expiry: string
  /** Capture at once (a sale) instead of leaving the authorization `pending`. Default false. */
  readonly capture?: boolean
}

const ACTIONS = new Set([
  'GET_TRANS_STATUS',
  'GET_TRANS_STATUS_BY_ORDER',
  'CAPTURE',
  'VOID',
  'CREDITVOID',
  'RECURRING_SALE',
  'CREATE_SCHEDULE',
  'DELETE_SCHEDULE',
  'UPDATE_SCHEDULE',
])

/** Required fields per action (spec S2S table). */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  GET_TRANS_STATUS: ['trans_id'],
  GET_TRANS_STATUS_BY_ORDER: ['order_id'],
  CAPTURE: ['trans_id'],
  VOID: ['trans_id'],
  CREDITVOID: ['trans_id'],
  RECURRING_SALE: ['order_id', 'order_amount', 'order_description', 'recurring_first_trans_id', 'recurring_token'],
  CREATE_SCHEDULE: ['name', 'interval_length', 'interval_unit', 'payments_count'],
  DELETE_SCHEDULE: ['schedule_id'],
  UPDATE_SCHEDULE: ['schedule_id'],
}

/** Hash inputs per operation (spec Authentication 5, PLATFORM_NOTES for the rest). */
const HASH_INPUTS: Readonly<Record<string, readonly string[]>> = {
  purchase: ['order.number', 'order.amount', 'order.currency', 'order.description'],
  credit: ['order_id', 'order_amount', 'order_currency', 'order_description'],
  status: ['payment_id', 'order_id'],
  GET_TRANS_STATUS: ['trans_id'],
  GET_TRANS_STATUS_BY_ORDER: ['order_id'],
  CAPTURE: ['trans_id'],
  VOID: ['trans_id'],
  CREDITVOID: ['trans_id'],
  RECURRING_SALE: ['order_id'],
  CREATE_SCHEDULE: [],
  DELETE_SCHEDULE: ['schedule_id'],
  UPDATE_SCHEDULE: ['schedule_id'],
}

const DEFAULT_CALLBACK_FIELDS = ['id', 'order_number', 'order_amount', 'order_currency', 'order_description']
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const S2S_STATUS: Readonly<Record<SimulatedPaymentStatus, string>> = {
  prepare: 'PREPARE',
  '3ds': '3DS',
  pending: 'PENDING',
  settled: 'SETTLED',
  decline: 'DECLINED',
  void: 'VOID',
  refund: 'REFUND',
}

/**
 * The simulator's own signer, written separately from the SDK's so a shared bug cannot hide:
 * PHP-like ASCII uppercase, inner digest as lowercase hex text, then sha1.
 */
export function simulatorHash(values: readonly string[], password: string, digest: Digest = 'md5'): string {
  let upper = ''
  for (const ch of values.join('') + password)
    upper += ch >= 'a' && ch <= 'z' ? String.fromCharCode(ch.charCodeAt(0) - 32) : ch
  const inner = createHash(digest).update(Buffer.from(upper, 'utf8')).digest('hex')
  return createHash('sha1').update(inner).digest('hex')
}

/**
 * Builds a correctly signed form-encoded callback body (PLATFORM_NOTES Checkout order by default):
 * the fields in the given order, then `hash`.
 */
export function signCallback(
  fields: Readonly<Record<string, string>>,
  password: string,
  options: { fieldOrder?: readonly string[]; digest?: Digest } = {},
): string {
  const order = options.fieldOrder ?? DEFAULT_CALLBACK_FIELDS
  const hash = simulatorHash(
    order.map((name) => fields[name] ?? ''),
    password,
    options.digest,
  )
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) params.append(name, value)
  params.append('hash', hash)
  return params.toString()
}

class Reply {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {}
}

function readPath(fields: Record<string, unknown>, path: string): string | undefined {
  let current: unknown = fields
  for (const step of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[step]
  }
  return typeof current === 'string' ? current : current === undefined || current === null ? undefined : String(current)
}

function normaliseIp(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address
}

/**
 * The stateful simulator. `handlers` are msw handlers (serve them with `startMockServer`, or use
 * `startCardGatewaySimulator`); `ledger`, `payments`, `schedules` and `callbacks` are inspectable.
 */
export class CardGatewaySimulator {
  readonly merchantKey: string
  readonly clientKey: string
  readonly password: string
  readonly payments: SimulatedPayment[] = []
  readonly schedules = new Map<string, SimulatedSchedule>()
  readonly ledger: LedgerEntry[] = []
  /** Signed callback bodies the simulator would have delivered, in order. */
  readonly callbacks: string[] = []
  /** Settings that tests may change between calls. */
  allowedIps: readonly string[] | undefined
  refunds: 'enabled' | 'disabled' | 'portal-only'
  legacyNotFound: boolean
  nestedValidationErrors: boolean
  unsupportedActions: readonly string[]
  readonly #options: CardGatewaySimulatorOptions
  readonly #clock: Clock
  readonly #otherKeys: ReadonlySet<string>
  readonly #seen = new Map<string, { at: number; reply: Reply }>()
  readonly #faults = new FaultQueue()

  constructor(options: CardGatewaySimulatorOptions = {}) {
    this.#options = options
    this.merchantKey = options.merchantKey ?? SIMULATOR_CREDENTIALS.merchantKey
    this.clientKey = options.clientKey ?? SIMULATOR_CREDENTIALS.clientKey
    this.password = options.password ?? SIMULATOR_CREDENTIALS.password
    this.#otherKeys = new Set(
      options.otherEnvironmentKeys ?? [SIMULATOR_LIVE_KEYS.merchantKey, SIMULATOR_LIVE_KEYS.clientKey],
    )
    this.#clock = options.clock ?? systemClock
    this.allowedIps = options.allowedIps
    this.refunds = options.refunds ?? 'enabled'
    this.legacyNotFound = options.legacyNotFound ?? false
    this.nestedValidationErrors = options.nestedValidationErrors ?? false
    this.unsupportedActions = options.unsupportedActions ?? []
  }

  /**
   * The CREATE_SCHEDULE hash inputs this simulator checks (default: the password alone, the one
   * public scheme); pass them as the client's `hashInputs['s2s.createSchedule']`.
   */
  get createScheduleHashInputs(): readonly string[] {
    return this.#options.hashInputs?.['CREATE_SCHEDULE'] ?? HASH_INPUTS['CREATE_SCHEDULE'] ?? []
  }

  /**
   * The next `count` requests to `path` or below it (`/post` for S2S; default any) are answered with
   * `status` (default 500) and an `ERROR` envelope, or `body`, without acting; with `{ when: 'after' }`
   * the request is acted on first (payment booked, captured…) and its answer is lost.
   */
  failNext(options: FailNextOptions = {}): void {
    this.#faults.add(options)
  }

  /** msw handlers: Checkout (JSON) under `/api/v1/…`, S2S CARD (form) at `/post`. */
  get handlers(): RequestHandler[] {
    return [
      http.post('*/api/v1/session', ({ request }) =>
        this.#serve(request, 'checkout', (b) => this.#purchase(b, request)),
      ),
      http.post('*/api/v1/payment/card/credit', ({ request }) =>
        this.#serve(request, 'checkout', (b) => this.#credit(b)),
      ),
      http.post('*/api/v1/payment/status', ({ request }) => this.#serve(request, 'checkout', (b) => this.#status(b))),
      http.post('*/post', ({ request }) => this.#serve(request, 's2s', (b) => this.#s2s(b))),
    ]
  }

  /** A payment by payment_id, trans_id or order number. */
  payment(ref: string): SimulatedPayment | undefined {
    return this.payments.find((p) => p.payment_id === ref || p.trans_id === ref || p.order_id === ref)
  }

  /**
   * The payer completes the hosted page with a card (PLATFORM_NOTES test cards): 01/2038 succeeds,
   * 02/2038 declines, 03/2038 authorises but its capture fails, 05/2038 and 06/2038 start a 3DS
   * challenge that `complete3ds` finishes with success or decline. Success leaves `pending`
   * (authorised) unless `capture` is set.
   */
  pay(ref: string, options: PayOptions): SimulatedPayment {
    const p = this.#require(ref)
    if (p.status !== 'prepare') throw new Error(`simulator: payment ${ref} is ${p.status}, not awaiting payment`)
    p.captureOnSuccess = options.capture ?? false
    const known = options.card === TEST_CARDS.number
    const expiry = known ? options.expiry : 'unknown'
    if (expiry === TEST_CARDS.threeDsSuccess || expiry === TEST_CARDS.threeDsDecline) {
      p.status = '3ds'
      p.declineAfter3ds = expiry === TEST_CARDS.threeDsDecline
      this.#callback(p, '3ds', 'waiting', { transStatus: 'C', eci: '', protocolVersion: '2.2.0' })
      return p
    }
    if (expiry === TEST_CARDS.success || expiry === TEST_CARDS.captureFails) {
      p.captureFails = expiry === TEST_CARDS.captureFails
      this.#authorise(p)
      return p
    }
    this.#decline(p)
    return p
  }

  /** The payer answers the 3DS challenge (cards 05/2038 and 06/2038). */
  complete3ds(ref: string): SimulatedPayment {
    const p = this.#require(ref)
    if (p.status !== '3ds') throw new Error(`simulator: payment ${ref} has no 3DS challenge open`)
    if (p.declineAfter3ds) this.#decline(p, { transStatus: 'N', eci: '07', protocolVersion: '2.2.0' })
    else this.#authorise(p, { transStatus: 'Y', eci: '05', protocolVersion: '2.2.0' })
    return p
  }

  /** A correctly signed callback body with the simulator's password and callback field order. */
  signCallback(fields: Readonly<Record<string, string>>): string {
    return signCallback(fields, this.password, {
      fieldOrder: this.#options.callbackFields ?? DEFAULT_CALLBACK_FIELDS,
      digest: this.#options.digest ?? 'md5',
    })
  }

  #require(ref: string): SimulatedPayment {
    const p = this.payment(ref)
    if (!p) throw new Error(`simulator: no payment ${ref}`)
    return p
  }

  #authorise(p: SimulatedPayment, threeDs: Record<string, string> = {}): void {
    p.card_token = `tok_${randomUUID().replaceAll('-', '')}`
    if (p.recurringInit) p.recurring_token = `rec_${randomUUID().replaceAll('-', '')}`
    p.status = p.captureOnSuccess ? 'settled' : 'pending'
    if (p.captureOnSuccess) p.capturedAmount = p.amount
    this.#record({ kind: 'charge', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.#callback(p, 'sale', 'success', threeDs)
  }

  #decline(p: SimulatedPayment, threeDs: Record<string, string> = {}): void {
    p.status = 'decline'
    this.#record({ kind: 'decline', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.#callback(p, 'sale', 'fail', { reason: 'Declined by issuer', ...threeDs })
  }

  #callback(p: SimulatedPayment, type: string, status: string, extra: Record<string, string> = {}): void {
    this.callbacks.push(
      this.signCallback({
        id: p.payment_id,
        order_number: p.order_id,
        order_amount: p.amount,
        order_currency: p.currency,
        order_description: p.description,
        order_status: p.status,
        type,
        status,
        ...extra,
      }),
    )
  }

  /** Wall-clock ms since the epoch, for times the simulator shows. */
  #date(): number {
    return this.#clock.date?.() ?? Date.now()
  }

  #record(entry: Omit<LedgerEntry, 'at'>): void {
    this.ledger.push({ at: this.#date(), ...entry })
  }

  // ── transport ────────────────────────────────────────────────────────────────────────────────

  async #serve(
    request: Request,
    api: 'checkout' | 's2s',
    run: (body: Record<string, unknown>) => Reply,
  ): Promise<Response> {
    const fault = this.#faults.take(new URL(request.url).pathname)
    if (fault?.when === 'before') return this.#faultAnswer(fault)
    const reply = await this.#handle(request, api, run)
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

  async #handle(
    request: Request,
    api: 'checkout' | 's2s',
    run: (body: Record<string, unknown>) => Reply,
  ): Promise<Reply> {
    const address = normaliseIp(request.headers.get(REMOTE_ADDRESS_HEADER) ?? '')
    if (this.allowedIps && !this.allowedIps.map(normaliseIp).includes(address)) {
      return this.#error(api, 100000, 'Request from this ip is not allowed.')
    }
    const type = request.headers.get('content-type') ?? ''
    const text = await request.text()
    if (api === 's2s') {
      // S2S CARD is form-only: a JSON body is an unknown route (PLATFORM_NOTES).
      if (!type.startsWith('application/x-www-form-urlencoded')) return this.#route()
      return run(Object.fromEntries(new URLSearchParams(text)))
    }
    if (!type.startsWith('application/json')) return this.#invalid(api, ['body: JSON expected.'])
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return this.#invalid(api, ['body: Invalid JSON.'])
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return this.#invalid(api, ['body: Object expected.'])
    return run(body as Record<string, unknown>)
  }

  #error(api: 'checkout' | 's2s', code: number, message: string, errors?: unknown[]): Reply {
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

  #invalid(api: 'checkout' | 's2s', problems: readonly string[]): Reply {
    return this.#error(
      api,
      100000,
      'Request data is invalid.',
      problems.map((p) => ({ error_code: 100000, error_message: p })),
    )
  }

  #route(): Reply {
    return new Reply(404, { result: 'ERROR', error_code: 0, error_message: 'Route or parameters is not supported' })
  }

  /** Key checks shared by both interfaces (spec Authentication 1, 3). */
  #checkKey(api: 'checkout' | 's2s', name: string, value: unknown, expected: string): Reply | undefined {
    if (typeof value !== 'string' || value === '')
      return this.#invalid(api, [`${name}: This value should not be blank.`])
    if (this.#otherKeys.has(value)) return this.#error(api, 220002, 'Use merchant test key.')
    if (value !== expected) return this.#invalid(api, [`${name}: Merchant not found.`])
    return undefined
  }

  #missing(body: Record<string, unknown>, names: readonly string[]): string[] {
    return names
      .filter((name) => {
        const value = readPath(body, name)
        return value === undefined || value === ''
      })
      .map((name) => `${name}: This value should not be blank.`)
  }

  #checkHash(api: 'checkout' | 's2s', key: string, body: Record<string, unknown>): Reply | undefined {
    const names = this.#options.hashInputs?.[key] ?? HASH_INPUTS[key] ?? []
    const expected = simulatorHash(
      names.map((name) => readPath(body, name) ?? ''),
      this.password,
      this.#options.digest,
    )
    return body['hash'] === expected ? undefined : this.#error(api, 100000, 'Hash is not valid')
  }

  /** 15 s dedup by merchant + order_id (spec Limits 1): replay inside the window, refuse after it. */
  #dedup(api: 'checkout' | 's2s', orderId: string, execute: () => Reply): Reply {
    const key = `${this.merchantKey}|${orderId}`
    const seen = this.#seen.get(key)
    const now = this.#clock.now()
    if (seen) {
      if (now - seen.at < SIMULATOR_DEDUP_WINDOW_MS) return seen.reply
      return this.#error(api, 100000, 'order_id: Duplicate payment.')
    }
    const reply = execute()
    this.#seen.set(key, { at: now, reply })
    return reply
  }

  #notFound(api: 'checkout' | 's2s', message: string): Reply {
    return this.#error(api, this.legacyNotFound ? 100000 : 101000, message)
  }

  // ── Checkout ─────────────────────────────────────────────────────────────────────────────────

  #purchase(body: Record<string, unknown>, request: Request): Reply {
    const keyProblem = this.#checkKey('checkout', 'merchant_key', body['merchant_key'], this.merchantKey)
    if (keyProblem) return keyProblem
    const missing = this.#missing(body, [
      'order.number',
      'order.amount',
      'order.currency',
      'order.description',
      'success_url',
      'cancel_url',
      'hash',
    ])
    if (missing.length > 0) return this.#invalid('checkout', missing)
    const hashProblem = this.#checkHash('checkout', 'purchase', body)
    if (hashProblem) return hashProblem
    const order = body['order'] as Record<string, string>
    return this.#dedup('checkout', order['number'] as string, () => {
      const payment: SimulatedPayment = {
        payment_id: randomUUID(),
        trans_id: randomUUID(),
        order_id: String(order['number']),
        amount: String(order['amount']),
        currency: String(order['currency']),
        description: String(order['description']),
        status: 'prepare',
        card_token: undefined,
        recurring_token: undefined,
        recurringInit: body['recurring_init'] === true,
        captureFails: false,
        captureOnSuccess: false,
        declineAfter3ds: false,
        capturedAmount: undefined,
        createdAt: this.#date(),
      }
      this.payments.push(payment)
      this.#record({ kind: 'session', trans_id: payment.trans_id, order_id: payment.order_id, amount: payment.amount })
      const origin = new URL(request.url).origin
      return new Reply(200, { redirect_url: `${origin}/checkout/${payment.payment_id}` })
    })
  }

  #credit(body: Record<string, unknown>): Reply {
    const keyProblem = this.#checkKey('checkout', 'merchant_key', body['merchant_key'], this.merchantKey)
    if (keyProblem) return keyProblem
    const problems = this.#missing(body, [
      'order_id',
      'order_amount',
      'order_currency',
      'order_description',
      'card_token',
      'hash',
    ])
    if (body['order'] !== undefined) problems.push('order: This field was not expected.')
    if (Array.isArray(body['card_token'])) problems.push('card_token: This value should be of type string.')
    if (typeof body['order_amount'] === 'string' && !/^\d+\.\d{2}$/.test(body['order_amount'])) {
      problems.push('order_amount: This value is not valid.')
    }
    if (body['operation'] !== 'credit') problems.push('operation: This value is not valid.')
    if (problems.length > 0) return this.#invalid('checkout', problems)
    const hashProblem = this.#checkHash('checkout', 'credit', body)
    if (hashProblem) return hashProblem
    return this.#dedup('checkout', String(body['order_id']), () => {
      const original = this.payments.find((p) => p.card_token !== undefined && p.card_token === body['card_token'])
      if (!original) return this.#error('checkout', 205005, 'Card token is invalid or not found.')
      const refused = this.#refundRefusal('checkout', original, 100000, 'Refund is not allowed')
      if (refused) return refused
      original.status = 'refund'
      this.#record({
        kind: 'credit',
        trans_id: original.trans_id,
        order_id: String(body['order_id']),
        amount: String(body['order_amount']),
      })
      this.#callback(original, 'refund', 'success')
      return new Reply(200, {
        result: 'SUCCESS',
        payment_id: randomUUID(),
        order_id: body['order_id'],
        amount: body['order_amount'],
        currency: body['order_currency'],
      })
    })
  }

  /** Refunds need a settled payment (spec rule 2) and refunds enabled on the account. */
  #refundRefusal(api: 'checkout' | 's2s', p: SimulatedPayment, code: number, message: string): Reply | undefined {
    if (this.refunds === 'disabled') return this.#error(api, 100000, 'Refund is not allowed')
    if (this.refunds === 'portal-only') {
      return this.#error(api, 210002, 'Refund via API is not supported. Only from the connector admin portal.')
    }
    if (p.status !== 'settled') return this.#error(api, code, message)
    return undefined
  }

  #status(body: Record<string, unknown>): Reply {
    const keyProblem = this.#checkKey('checkout', 'merchant_key', body['merchant_key'], this.merchantKey)
    if (keyProblem) return keyProblem
    const byPayment = typeof body['payment_id'] === 'string' && body['payment_id'] !== ''
    const byOrder = typeof body['order_id'] === 'string' && body['order_id'] !== ''
    const problems = this.#missing(body, ['hash'])
    if (!byPayment && !byOrder) problems.push('payment_id: This value should not be blank.')
    if (problems.length > 0) return this.#invalid('checkout', problems)
    const hashProblem = this.#checkHash('checkout', 'status', body)
    if (hashProblem) return hashProblem
    const p = byPayment
      ? this.payments.find((x) => x.payment_id === body['payment_id'])
      : this.payments.find((x) => x.order_id === body['order_id'])
    if (!p) return this.#notFound('checkout', byPayment ? 'Payment does not exist.' : 'Order does not exist.')
    return new Reply(200, {
      payment_id: p.payment_id,
      date: new Date(p.createdAt).toISOString(),
      status: p.status,
      order: { number: p.order_id, amount: p.amount, currency: p.currency, description: p.description },
      ...(p.recurring_token ? { recurring_token: p.recurring_token } : {}),
    })
  }

  // ── S2S CARD ─────────────────────────────────────────────────────────────────────────────────

  #s2s(body: Record<string, unknown>): Reply {
    const f = body as Record<string, string>
    const action = f['action'] ?? ''
    if (!ACTIONS.has(action)) return this.#route() // spec: any other action name → 404, 0
    if (this.unsupportedActions.includes(action)) return this.#error('s2s', 204005, 'Payment action not supported')
    const keyProblem = this.#checkKey('s2s', 'client_key', f['client_key'], this.clientKey)
    if (keyProblem) return keyProblem
    const missing = this.#missing(body, [...(REQUIRED[action] ?? []), 'hash'])
    if (action === 'CREATE_SCHEDULE' || action === 'UPDATE_SCHEDULE') missing.push(...this.#scheduleProblems(f))
    if (missing.length > 0) return this.#invalid('s2s', missing) // S2S rule 3
    const hashProblem = this.#checkHash('s2s', action, body)
    if (hashProblem) return hashProblem
    // S2S rule 2: the UUID check comes before any existence check.
    if (f['schedule_id'] !== undefined && !UUID.test(f['schedule_id'])) {
      return this.#error('s2s', 100000, 'This is not a valid UUID.')
    }
    switch (action) {
      case 'GET_TRANS_STATUS': {
        const p = this.payments.find((x) => x.trans_id === f['trans_id'])
        return p ? this.#transReply(action, p) : this.#notFound('s2s', 'Transaction does not exist.')
      }
      case 'GET_TRANS_STATUS_BY_ORDER': {
        const p = this.payments.findLast((x) => x.order_id === f['order_id'])
        return p ? this.#transReply(action, p) : this.#notFound('s2s', 'Order does not exist.')
      }
      case 'CAPTURE':
        return this.#capture(f)
      case 'VOID':
        return this.#void(f)
      case 'CREDITVOID':
        return this.#creditVoid(f)
      case 'RECURRING_SALE':
        return this.#recurringSale(f)
      default:
        return this.#schedule(action, f)
    }
  }

  #scheduleProblems(f: Record<string, string>): string[] {
    const problems: string[] = []
    const unit = f['interval_unit']
    if (unit !== undefined && unit !== 'day' && unit !== 'month') {
      problems.push('interval_unit: The value you selected is not a valid choice.')
    }
    for (const name of ['interval_length', 'payments_count']) {
      const value = f[name]
      if (value !== undefined && !/^[1-9]\d*$/.test(value)) problems.push(`${name}: This value should be positive.`)
    }
    return problems
  }

  #transReply(action: string, p: SimulatedPayment, extra: Record<string, unknown> = {}): Reply {
    return new Reply(200, {
      action,
      result: 'SUCCESS',
      status: S2S_STATUS[p.status],
      order_id: p.order_id,
      trans_id: p.trans_id,
      trans_date: new Date(p.createdAt).toISOString(),
      amount: p.capturedAmount ?? p.amount,
      currency: p.currency,
      ...(p.recurring_token ? { recurring_token: p.recurring_token } : {}),
      ...extra,
    })
  }

  #capture(f: Record<string, string>): Reply {
    const p = this.payments.find((x) => x.trans_id === f['trans_id'])
    if (!p) return this.#notFound('s2s', 'Transaction does not exist.')
    if (p.status !== 'pending') {
      return this.#error('s2s', 208003, 'capture requested for a payment not in pending status') // spec rule 1
    }
    const amount = f['amount'] ?? p.amount
    if (Number(amount) > Number(p.amount)) return this.#invalid('s2s', ['amount: This value is too high.'])
    if (p.captureFails) {
      this.#record({ kind: 'capture_declined', trans_id: p.trans_id, order_id: p.order_id, amount })
      return this.#transReply('CAPTURE', p, { result: 'DECLINED', decline_reason: 'Capture declined by the acquirer' })
    }
    p.status = 'settled'
    p.capturedAmount = amount
    this.#record({ kind: 'capture', trans_id: p.trans_id, order_id: p.order_id, amount })
    this.#callback(p, 'capture', 'success')
    return this.#transReply('CAPTURE', p)
  }

  #void(f: Record<string, string>): Reply {
    const p = this.payments.find((x) => x.trans_id === f['trans_id'])
    if (!p) return this.#error('s2s', 100000, 'Payment not found.') // payment entity: 100000
    if (p.status !== 'pending') return this.#error('s2s', 204005, 'Payment action not supported')
    p.status = 'void'
    this.#record({ kind: 'void', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.#callback(p, 'void', 'success')
    return this.#transReply('VOID', p)
  }

  #creditVoid(f: Record<string, string>): Reply {
    const p = this.payments.find((x) => x.trans_id === f['trans_id'])
    if (!p) return this.#error('s2s', 100000, 'Payment not found.')
    const refused = this.#refundRefusal('s2s', p, 208005, 'associated with the settled state')
    if (refused) return refused
    const amount = f['amount'] ?? p.capturedAmount ?? p.amount
    p.status = 'refund'
    this.#record({ kind: 'refund', trans_id: p.trans_id, order_id: p.order_id, amount })
    this.#callback(p, 'refund', 'success')
    // CREDITVOID answers ACCEPTED at once; the outcome follows by callback (PLATFORM_NOTES).
    return new Reply(200, { action: 'CREDITVOID', result: 'ACCEPTED', order_id: p.order_id, trans_id: p.trans_id })
  }

  #recurringSale(f: Record<string, string>): Reply {
    return this.#dedup('s2s', f['order_id'] as string, () => {
      const first = this.payments.find((x) => x.trans_id === f['recurring_first_trans_id'])
      const valid = first?.recurring_token !== undefined && first.recurring_token === f['recurring_token']
      if (!first || !valid) return this.#error('s2s', 100000, 'Incorrect transaction') // S2S rule 4
      const p: SimulatedPayment = {
        payment_id: randomUUID(),
        trans_id: randomUUID(),
        order_id: f['order_id'] as string,
        amount: f['order_amount'] as string,
        currency: f['order_currency'] ?? first.currency,
        description: f['order_description'] as string,
        status: 'settled',
        card_token: first.card_token,
        recurring_token: first.recurring_token,
        recurringInit: false,
        captureFails: false,
        captureOnSuccess: true,
        declineAfter3ds: false,
        capturedAmount: f['order_amount'],
        createdAt: this.#date(),
      }
      this.payments.push(p)
      this.#record({ kind: 'recurring_sale', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
      return this.#transReply('RECURRING_SALE', p)
    })
  }

  #schedule(action: string, f: Record<string, string>): Reply {
    if (action === 'CREATE_SCHEDULE') {
      const id = f['schedule_id'] ?? randomUUID()
      this.schedules.set(id, {
        schedule_id: id,
        name: f['name'] as string,
        interval_length: f['interval_length'] as string,
        interval_unit: f['interval_unit'] as string,
        payments_count: f['payments_count'] as string,
      })
      this.#record({ kind: 'schedule_created', schedule_id: id })
      return new Reply(200, { action, result: 'SUCCESS', schedule_id: id })
    }
    const id = f['schedule_id'] as string
    const schedule = this.schedules.get(id)
    if (!schedule) return this.#error('s2s', 100000, 'Schedule not found') // schedule entity: 100000
    if (action === 'DELETE_SCHEDULE') {
      this.schedules.delete(id)
      this.#record({ kind: 'schedule_deleted', schedule_id: id })
    } else {
      for (const name of ['name', 'interval_length', 'interval_unit', 'payments_count'] as const) {
        const value = f[name]
        if (value !== undefined) schedule[name] = value
      }
      this.#record({ kind: 'schedule_updated', schedule_id: id })
    }
    return new Reply(200, { action, result: 'SUCCESS', schedule_id: id })
  }
}
