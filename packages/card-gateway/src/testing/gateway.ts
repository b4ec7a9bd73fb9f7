/** The simulated gateway's accounts, payments, transport and answers: the state the operations in `simulator.ts` act on. */

import { randomUUID } from 'node:crypto'
import { type Clock, systemClock } from '@paywire/core'
import {
  type FailNextOptions,
  FaultQueue,
  faultAnswer,
  type InjectedFault,
  REMOTE_ADDRESS_HEADER,
} from '@paywire/core/testing'
import { HttpResponse } from 'msw'
import { formatAmountLike, toMinorUnits } from '../amount.js'
import { cardOperationOf, FAULT_ACTIONS, FAULT_OPERATIONS } from './operations.js'
import {
  type CardGatewaySimulatorOptions,
  DEFAULT_CALLBACK_FIELDS,
  HASH_INPUTS,
  type LedgerEntry,
  normaliseIp,
  type PayOptions,
  Reply,
  readPath,
  SIMULATOR_CREDENTIALS,
  SIMULATOR_DEDUP_WINDOW_MS,
  SIMULATOR_LIVE_KEYS,
  type SimulatedPayment,
  type SimulatedPaymentStatus,
  type SimulatedSchedule,
  signCallback,
  simulatorHash,
  TEST_CARDS,
  tokensOf,
} from './rules.js'
import { strictProblems } from './strict.js'
import { type SimulatorPayerLookup, simulatorPayerLookup, strrevCallbackBody, strrevExpected } from './strrev.js'

/** The callback `type` and `status` a payment's move to each state sends (`setStatus`). */
const STATUS_CALLBACK: Readonly<Record<Exclude<SimulatedPaymentStatus, 'prepare'>, readonly [string, string]>> = {
  '3ds': ['3ds', 'waiting'],
  pending: ['sale', 'success'],
  settled: ['capture', 'success'],
  decline: ['sale', 'fail'],
  void: ['void', 'success'],
  refund: ['refund', 'success'],
}

/**
 * What every simulated operation shares: the merchant account and its options, payments,
 * schedules, the ledger and callbacks, the payment lifecycle, the transport (faults, IP allowlist,
 * body parsing) and the gateway's error answers. `CardGatewaySimulator` adds the operations.
 */
export class SimulatedGateway {
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
  /** Whether the strict checks are off (`lenient: true`): see `CardGatewaySimulatorOptions.lenient`. */
  lenient: boolean
  readonly #options: CardGatewaySimulatorOptions
  readonly #clock: Clock
  readonly #otherKeys: ReadonlySet<string>
  readonly #seen = new Map<string, { operation: string; at: number; reply: Reply }>()
  readonly #faults = new FaultQueue({ actions: FAULT_ACTIONS, operations: FAULT_OPERATIONS })
  /** Makes ids and tokens (`options.uuid`, default `crypto.randomUUID`). */
  protected readonly uuid: () => string
  /** The signature scheme this simulated brand verifies and signs with. */
  readonly signature: 'seed' | 'card-md5-strrev'

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
    this.lenient = options.lenient ?? false
    this.uuid = options.uuid ?? randomUUID
    this.signature = options.signature ?? 'seed'
    if (this.signature !== 'seed' && this.signature !== 'card-md5-strrev') {
      throw new Error(`simulator: signature must be "seed" or "card-md5-strrev", not ${String(this.signature)}`)
    }
  }

  /**
   * The CREATE_SCHEDULE hash inputs this simulator checks (default: the password alone, the one
   * public scheme); pass them as the client's `hashInputs['s2s.createSchedule']`.
   */
  get createScheduleHashInputs(): readonly string[] {
    return this.#options.hashInputs?.['CREATE_SCHEDULE'] ?? HASH_INPUTS['CREATE_SCHEDULE'] ?? []
  }

  /**
   * A `payerLookup` for a client of this simulator on the strrev scheme: the payer email and card
   * digits of the simulator's payment by trans_id (or order_id). A merchant reads its own records.
   */
  get payerLookup(): SimulatorPayerLookup {
    return simulatorPayerLookup(this.payments)
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

  /** A payment by payment_id, trans_id or order number. */
  payment(ref: string): SimulatedPayment | undefined {
    return this.payments.find((p) => p.payment_id === ref || p.trans_id === ref || p.order_id === ref)
  }

  /**
   * The payer completes the hosted page with a card (rule Platform 18 test cards): 01/2038 succeeds,
   * 02/2038 declines, 03/2038 authorises but its capture fails, 05/2038 and 06/2038 start a 3DS
   * challenge that `complete3ds` finishes with success or decline. Success leaves `pending`
   * (authorised) unless `capture` is set.
   */
  pay(ref: string, options: PayOptions): SimulatedPayment {
    const p = this.#require(ref)
    if (p.status !== 'prepare') throw new Error(`simulator: payment ${ref} is ${p.status}, not awaiting payment`)
    p.captureOnSuccess = options.capture ?? false
    p.cardDigits = `${options.card.slice(0, 6)}${options.card.slice(-4)}`
    const known = options.card === TEST_CARDS.number
    const expiry = known ? options.expiry : 'unknown'
    if (expiry === TEST_CARDS.threeDsSuccess || expiry === TEST_CARDS.threeDsDecline) {
      p.status = '3ds'
      p.declineAfter3ds = expiry === TEST_CARDS.threeDsDecline
      this.callback(p, '3ds', 'waiting', { transStatus: 'C', eci: '', protocolVersion: '2.2.0' })
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

  /**
   * Moves a payment (by payment_id, trans_id or order number) to `status` as the gateway would
   * report it, with the callback of that change: `pending` (authorised) and `decline` a sale,
   * `settled` a capture, `void`, `refund`, `3ds` a challenge waiting. For states a test cannot reach
   * through `pay` (a capture done in the gateway's portal, a chargeback's refund…).
   */
  setStatus(ref: string, status: Exclude<SimulatedPaymentStatus, 'prepare'>): SimulatedPayment {
    const p = this.#require(ref)
    if (!STATUS_CALLBACK[status]) throw new Error(`simulator: unknown payment status ${String(status)}`)
    if (status === 'pending' || status === 'settled') p.card_token ??= `tok_${this.uuid().replaceAll('-', '')}`
    if (status === 'settled') p.capturedAmount ??= p.amount
    // A refund set from outside (the portal, a chargeback's refund) refunds everything left.
    if (status === 'refund') p.refundedAmount = p.capturedAmount ?? p.amount
    p.status = status
    this.record({ kind: 'status_set', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount, status })
    const [type, outcome] = STATUS_CALLBACK[status]
    this.callback(p, type, outcome)
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
    p.card_token = `tok_${this.uuid().replaceAll('-', '')}`
    if (p.recurringInit) p.recurring_token = `rec_${this.uuid().replaceAll('-', '')}`
    p.status = p.captureOnSuccess ? 'settled' : 'pending'
    if (p.captureOnSuccess) p.capturedAmount = p.amount
    this.record({ kind: 'charge', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.callback(p, 'sale', 'success', threeDs)
  }

  #decline(p: SimulatedPayment, threeDs: Record<string, string> = {}): void {
    p.status = 'decline'
    this.record({ kind: 'decline', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.callback(p, 'sale', 'fail', { reason: 'Declined by issuer', ...threeDs })
  }

  protected callback(p: SimulatedPayment, type: string, status: string, extra: Record<string, string> = {}): void {
    const body = this.signCallback({
      id: p.payment_id,
      order_number: p.order_id,
      order_amount: p.amount,
      order_currency: p.currency,
      order_description: p.description,
      order_status: p.status,
      type,
      status,
      ...tokensOf(p),
      ...extra,
    })
    this.callbacks.push(body)
    this.#options.onCallback?.(body, p)
  }

  /**
   * The callback after an S2S action: on the strrev scheme an S2S CARD callback (`action`, `result`,
   * `status`, `order_id`, `trans_id`, rule Platform 17) signed with that scheme; otherwise the
   * Checkout-shaped callback of `callback`.
   */
  protected actionCallback(
    p: SimulatedPayment,
    action: string,
    type: string,
    status: string,
    s2sStatus: string,
    extra: Record<string, string> = {},
  ): void {
    if (this.signature === 'seed') {
      this.callback(p, type, status, extra)
      return
    }
    const body = strrevCallbackBody(p, action, s2sStatus, this.password, extra)
    this.callbacks.push(body)
    this.#options.onCallback?.(body, p)
  }

  /**
   * A refund of `requested` (this refund's amount; `undefined`: everything left) on `p`, or the
   * refusal: an amount that is not one of the payment's currency, or above what is left to refund
   * (captured amount less the refunded total), is refused as invalid data and nothing is refunded.
   * Sums run in minor units. Partial: the payment stays `settled`; the last part makes it `refund`.
   */
  protected refund(
    api: 'checkout' | 's2s',
    p: SimulatedPayment,
    field: string,
    requested: string | undefined,
  ): { amount: string; full: boolean } | Reply {
    const total = p.capturedAmount ?? p.amount
    const totalMinor = toMinorUnits(total, p.currency) ?? 0n
    const refundedMinor = p.refundedAmount === undefined ? 0n : (toMinorUnits(p.refundedAmount, p.currency) ?? 0n)
    const left = totalMinor - refundedMinor
    const amountMinor = requested === undefined ? left : toMinorUnits(requested, p.currency)
    if (amountMinor === undefined || amountMinor <= 0n) return this.invalid(api, [`${field}: This value is not valid.`])
    if (amountMinor > left) {
      const most = formatAmountLike(left, p.currency, total)
      return this.invalid(api, [`${field}: This value should be less than or equal to ${most}.`])
    }
    const refunded = refundedMinor + amountMinor
    p.refundedAmount = formatAmountLike(refunded, p.currency, total)
    const full = refunded === totalMinor
    p.status = full ? 'refund' : 'settled'
    return { amount: requested ?? formatAmountLike(amountMinor, p.currency, total), full }
  }

  /** The platform's date form (`2026-11-26 05:00:07`, UTC) of a refund's `creditvoid_date`. */
  protected platformDate(): string {
    return new Date(this.date()).toISOString().slice(0, 19).replace('T', ' ')
  }

  /** Wall-clock ms since the epoch, for times the simulator shows. */
  protected date(): number {
    return this.#clock.date?.() ?? Date.now()
  }

  protected record(entry: Omit<LedgerEntry, 'at'>): void {
    this.ledger.push({ at: this.date(), ...entry })
  }

  // ── transport ────────────────────────────────────────────────────────────────────────────────

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
    const now = this.#clock.now()
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
