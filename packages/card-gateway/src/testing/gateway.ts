/** The simulated gateway's payments and their lifecycle, schedules, ledger and callbacks: the state the operations in `simulator.ts` act on. */

import { randomUUID } from 'node:crypto'
import { formatAmountLike, toMinorUnits } from '../amount.js'
import {
  type CardGatewayLedgerEntry,
  type CardGatewaySimulatorOptions,
  DEFAULT_CALLBACK_FIELDS,
  HASH_INPUTS,
  type PayOptions,
  type Reply,
  SIMULATOR_AUTHORIZATION_VALID_MS,
  type SimulatedPayment,
  type SimulatedPaymentStatus,
  type SimulatedSchedule,
  signCallback,
  TEST_CARDS,
  tokensOf,
} from './rules.js'
import { type SimulatorPayerLookup, simulatorPayerLookup, strrevCallbackBody } from './strrev.js'
import { SimulatedTransport } from './transport.js'

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
 * What every simulated operation shares beyond the transport (`SimulatedTransport`): the merchant
 * account's payments, schedules, the ledger and callbacks, and the payment lifecycle.
 * `CardGatewaySimulator` adds the operations.
 */
export class SimulatedGateway extends SimulatedTransport {
  readonly payments: SimulatedPayment[] = []
  readonly schedules = new Map<string, SimulatedSchedule>()
  readonly ledger: CardGatewayLedgerEntry[] = []
  /** Signed callback bodies the simulator would have delivered, in order. */
  readonly callbacks: string[] = []
  /** Settings that tests may change between calls. */
  refunds: 'enabled' | 'disabled' | 'portal-only'
  unsupportedActions: readonly string[]
  readonly #options: CardGatewaySimulatorOptions
  readonly #authorizationValidMs: number
  /** Makes ids and tokens (`options.uuid`, default `crypto.randomUUID`). */
  protected readonly uuid: () => string

  constructor(options: CardGatewaySimulatorOptions = {}) {
    super(options)
    this.#options = options
    this.refunds = options.refunds ?? 'enabled'
    this.unsupportedActions = options.unsupportedActions ?? []
    this.uuid = options.uuid ?? randomUUID
    this.#authorizationValidMs = options.authorizationValidMs ?? SIMULATOR_AUTHORIZATION_VALID_MS
    if (!(this.#authorizationValidMs > 0)) {
      throw new RangeError('simulator: authorizationValidMs must be a duration in ms above 0 (Infinity: never)')
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
   * A payment by payment_id, trans_id or order number, brought up to date first: an authorisation
   * past `authorizationValidMs` expires (rule Platform 28).
   */
  payment(ref: string): SimulatedPayment | undefined {
    const p = this.payments.find((x) => x.payment_id === ref || x.trans_id === ref || x.order_id === ref)
    return p && this.expire(p)
  }

  /**
   * Expires every authorisation (`pending`) older than `authorizationValidMs` on the simulator's
   * clock (rule Platform 28): each becomes `void`, with a void callback (reason
   * `Authorization expired`) and an `expire` ledger entry. Returns the payments it expired.
   */
  expireAuthorizations(): SimulatedPayment[] {
    return this.payments.filter((p) => this.#expired(p))
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
    if (status === 'pending') p.authorizedAt = this.clock.now()
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
    else p.authorizedAt = this.clock.now()
    this.record({ kind: 'charge', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.callback(p, 'sale', 'success', threeDs)
  }

  /** `p`, expired first when it is an authorisation past `authorizationValidMs` (rule Platform 28). */
  protected expire(p: SimulatedPayment): SimulatedPayment {
    this.#expired(p)
    return p
  }

  /** Expires `p` if it is due; whether it did. */
  #expired(p: SimulatedPayment): boolean {
    if (p.status !== 'pending' || p.authorizedAt === undefined) return false
    if (this.clock.now() - p.authorizedAt < this.#authorizationValidMs) return false
    p.status = 'void'
    this.record({ kind: 'expire', trans_id: p.trans_id, order_id: p.order_id, amount: p.amount })
    this.callback(p, 'void', 'success', { reason: 'Authorization expired' })
    return true
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
    if (this.signature === 'seed' && this.#options.s2sCallbackShape !== 's2s') {
      this.callback(p, type, status, extra)
      return
    }
    const body =
      this.signature === 'seed'
        ? this.#seedS2sCallback(p, action, s2sStatus, extra)
        : strrevCallbackBody(p, action, s2sStatus, this.password, extra)
    this.callbacks.push(body)
    this.#options.onCallback?.(body, p)
  }

  /** The fields S2S callbacks are signed over on the seed signature (`s2sCallbackFields`, default `trans_id`). */
  get s2sCallbackFields(): readonly string[] {
    return this.#options.s2sCallbackFields ?? ['trans_id']
  }

  /** An S2S CARD callback (rule Platform 17) signed with the seed chain over `s2sCallbackFields`, password last. */
  #seedS2sCallback(p: SimulatedPayment, action: string, s2sStatus: string, extra: Record<string, string>): string {
    const fields: Record<string, string> = {
      action,
      result: 'SUCCESS',
      status: s2sStatus,
      order_id: p.order_id,
      trans_id: p.trans_id,
      trans_date: new Date(this.date()).toISOString().slice(0, 19).replace('T', ' '),
      amount: p.capturedAmount ?? p.amount,
      currency: p.currency,
      ...tokensOf(p),
      ...extra,
    }
    return signCallback(fields, this.password, {
      fieldOrder: this.s2sCallbackFields,
      digest: this.#options.digest ?? 'md5',
    })
  }

  /** Whether S2S actions send S2S-shaped callbacks (always on card-md5-strrev; on seed with `s2sCallbackShape: 's2s'`). */
  protected get s2sShaped(): boolean {
    return this.signature !== 'seed' || this.#options.s2sCallbackShape === 's2s'
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
    return this.clock.date?.() ?? Date.now()
  }

  protected record(entry: Omit<CardGatewayLedgerEntry, 'at'>): void {
    this.ledger.push({ at: this.date(), ...entry })
  }

  /** Refunds need a settled payment (rule States 2) and refunds enabled on the account. */
  protected refundRefusal(
    api: 'checkout' | 's2s',
    p: SimulatedPayment,
    code: number,
    message: string,
  ): Reply | undefined {
    if (this.refunds === 'disabled') return this.error(api, 100000, 'Refund is not allowed')
    if (this.refunds === 'portal-only') {
      return this.error(api, 210002, 'Refund via API is not supported. Only from the connector admin portal.')
    }
    if (p.status !== 'settled') return this.error(api, code, message)
    return undefined
  }
}
