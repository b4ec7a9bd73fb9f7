/** A stateful remittance service for tests: msw handlers over beneficiaries, fixtures, rates and transfers. */

import { type FailNextOptions, FaultQueue, faultAnswer, type InjectedFault } from '@paywire/core/testing'
import { HttpResponse, http, type RequestHandler } from 'msw'
import { type RemittanceFixtures, remittanceFixtures } from './fixtures.js'
import {
  BANK_TYPES,
  BENEFICIARY_TYPES,
  type Body,
  CASH_TYPES,
  destinationCurrency,
  type Errors,
  filterByQuery,
  type LedgerEntry,
  MOBILE_TYPES,
  type MutableEntry,
  nonNegative,
  onlyDigits,
  PROBLEM_TYPE,
  RATE_TYPES,
  type RemittanceSimulatorOptions,
  RFC,
  referenceErrors,
  required,
  round2,
  SIMULATOR_API_KEY,
  type SimulatedBeneficiary,
  simulatorFees,
  sleErrors,
  statusSection,
  statusView,
  stringFields,
  type TransferKind,
  typeErrors,
} from './rules.js'

/**
 * The simulated service. Rules it follows, the service's own first, then the platform's, then its
 * own guesses (rule IDs of https://github.com/paywire/paywire/blob/main/docs/remittance-rules.md):
 * - every call needs `x-code` equal to `apiKey`, else 401 ProblemDetails (rules Authentication 1–2);
 * - bodies must be JSON objects with the documented JSON types, else 400 ProblemDetails with an
 *   ASP.NET `errors` map (rules Resources 1–5, Errors 1, Platform 6); amounts in SLE have at most 2
 *   decimals (rule Platform 4);
 * - simulator guesses: beneficiaries need `firstName`, `lastName` and `telephone`; updates name the
 *   `beneficiaryId`; transfers need `remitterId`, a known `beneficiaryId`, `destinationCountry`,
 *   `amountSLE` > 0 and `agentTransactionRef`, plus the mobile network/number, the collection point,
 *   or `bankId` and `accountNumber`;
 * - a reused `agentTransactionRef` is refused with 400 (rule Platform 5), naming the original
 *   `transactionId` as an extension member;
 * - a transfer returns `transactionId`; confirm returns `referenceNumber` (rule Platform 2); the
 *   status lookup finds a transaction by `referenceNumber` or `agentTransactionRef`;
 * - every success answer has the shape of the package's result types (rules Platform 12–18);
 * - `failNext` injects upstream failures (502 by default) before anything else happens, or after
 *   the request was acted on (`when: 'after'`).
 */
export class RemittanceSimulator {
  readonly apiKey: string
  readonly fixtures: RemittanceFixtures
  /** msw handlers; serve them with `startMockServer` (or use `startRemittanceSimulator`). */
  readonly handlers: RequestHandler[]
  readonly #createdBody: 'record' | 'empty'
  #beneficiaries: SimulatedBeneficiary[] = []
  #ledger: MutableEntry[] = []
  readonly #faults = new FaultQueue()
  #sequence = 0
  #traces = 0

  constructor(options: RemittanceSimulatorOptions = {}) {
    this.apiKey = options.apiKey ?? SIMULATOR_API_KEY
    this.fixtures = { ...remittanceFixtures, ...options.fixtures }
    this.#createdBody = options.createdBody ?? 'record'
    this.handlers = this.#buildHandlers()
  }

  /** Beneficiaries stored so far (copies). */
  get beneficiaries(): readonly SimulatedBeneficiary[] {
    return this.#beneficiaries.map((b) => ({ ...b }))
  }

  /** Every executed transfer, in order (copies). */
  get ledger(): readonly LedgerEntry[] {
    return this.#ledger.map((entry) => ({ ...entry }))
  }

  /**
   * The next `count` requests to `path` or below it (e.g. `/api/transactions/confirm`; default any)
   * fail with `status` (default 502, an upstream failure) and a ProblemDetails, or `body`, before auth
   * or any state change; with `{ when: 'after' }` the request is acted on first and its answer lost.
   */
  failNext(options: FailNextOptions = {}): void {
    this.#faults.add(options)
  }

  /** Moves a transaction (by transaction id, reference number or agentTransactionRef) to `status`. */
  setStatus(id: string, status: string): void {
    const entry = this.#findTransaction(id)
    if (!entry) throw new Error(`no simulated transaction ${id}`)
    entry.status = status
  }

  /** Forgets beneficiaries, transfers and pending failures. */
  reset(): void {
    this.#beneficiaries = []
    this.#ledger = []
    this.#faults.clear()
    this.#sequence = 0
  }

  #next(prefix: string): string {
    this.#sequence += 1
    return `${prefix}${String(this.#sequence).padStart(6, '0')}`
  }

  #findTransaction(id: string): MutableEntry | undefined {
    return this.#ledger.find(
      (entry) => entry.transactionId === id || entry.referenceNumber === id || entry.agentTransactionRef === id,
    )
  }

  // ---- answers ------------------------------------------------------------------------------

  #problem(status: number, title: string, detail?: string, extra: Body = {}): Response {
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

  #trace(): string {
    this.#traces += 1
    return `${this.#traces.toString(16).padStart(32, '0')}-${'0'.repeat(15)}1`
  }

  #validation(errors: Errors, title = 'One or more validation errors occurred.'): Response {
    return this.#problem(400, title, undefined, { errors })
  }

  #faultAnswer(fault: InjectedFault): Response {
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

  // ---- routing ------------------------------------------------------------------------------

  /** Wraps a route: injected failures first, then the `x-code` check, then the route itself. */
  #route(
    method: 'get' | 'post' | 'put',
    path: string,
    answer: (request: Request, params: Record<string, string>, url: URL) => Response | Promise<Response>,
  ): RequestHandler {
    return http[method](`*${path}`, async ({ request, params }) => {
      const url = new URL(request.url)
      const fault = this.#faults.take(url.pathname)
      if (fault?.when === 'before') return this.#faultAnswer(fault)
      const answered = await this.#authorized(request, params, url, answer)
      return fault ? this.#faultAnswer(fault) : answered
    })
  }

  /** The `x-code` check, then the route. */
  async #authorized(
    request: Request,
    params: Record<string, string | readonly string[] | undefined>,
    url: URL,
    answer: (request: Request, params: Record<string, string>, url: URL) => Response | Promise<Response>,
  ): Promise<Response> {
    const key = request.headers.get('x-code')
    if (key === null || key === '') {
      return this.#problem(401, 'Unauthorized', 'The x-code header is missing.')
    }
    if (key !== this.apiKey) return this.#problem(401, 'Unauthorized', 'The x-code header holds an unknown API key.')
    const flat: Record<string, string> = {}
    for (const [name, value] of Object.entries(params)) if (typeof value === 'string') flat[name] = value
    return answer(request, flat, url)
  }

  /** Reads a JSON object body, or answers the 415/400 the service would. */
  async #body(request: Request): Promise<Body | Response> {
    const type = request.headers.get('content-type') ?? ''
    if (!type.includes('json'))
      return this.#problem(415, 'Unsupported Media Type', `Expected JSON, got ${type || 'none'}.`)
    const text = await request.text()
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return this.#validation({ $: ['The request body is not valid JSON.'] })
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return this.#validation({ $: ['The request body must be a JSON object.'] })
    }
    return value as Body
  }

  #buildHandlers(): RequestHandler[] {
    const f = this.fixtures
    const list = (items: readonly object[]) => (_request: Request, _params: Record<string, string>, url: URL) =>
      HttpResponse.json(filterByQuery(items, url.searchParams))
    return [
      this.#route('post', '/api/beneficiaries', (request) => this.#createBeneficiary(request)),
      this.#route('put', '/api/beneficiaries', (request) => this.#updateBeneficiary(request)),
      this.#route('get', '/api/beneficiaries/posid/:posid', (_r, params) =>
        HttpResponse.json(this.#beneficiaries.filter((b) => b.posid === params.posid)),
      ),
      this.#route('get', '/api/beneficiaries/any/:searchValue', (_r, params) => {
        const needle = (params.searchValue ?? '').toLowerCase()
        return HttpResponse.json(
          this.#beneficiaries.filter((b) => Object.values(b).some((v) => v.toLowerCase().includes(needle))),
        )
      }),
      this.#route('get', '/api/beneficiaries/telephone/:telephone', (_r, params) => {
        const digits = onlyDigits(params.telephone ?? '')
        return HttpResponse.json(
          this.#beneficiaries.filter(
            (b) => digits !== '' && (onlyDigits(b.telephone ?? '') === digits || onlyDigits(b.mobile ?? '') === digits),
          ),
        )
      }),
      this.#route('post', '/api/lookup/name-enquiry', async (request) => {
        const body = await this.#body(request)
        if (body instanceof Response) return body
        return this.#nameEnquiry(body.bankCode, body.accountNumber)
      }),
      this.#route('get', '/api/lookup/name-enquiry', (_r, _p, url) =>
        this.#nameEnquiry(
          url.searchParams.get('bankCode') ?? undefined,
          url.searchParams.get('accountNumber') ?? undefined,
        ),
      ),
      this.#route('post', '/api/lookup/rates', (request) => this.#rates(request)),
      this.#route('get', '/api/lookup/destination-countries', list(f.destinationCountries)),
      this.#route('get', '/api/lookup/delivery-bank-branches', list(f.deliveryBankBranches)),
      this.#route('get', '/api/lookup/delivery-banks', list(f.deliveryBanks)),
      this.#route('get', '/api/lookup/collection-points', list(f.collectionPoints)),
      this.#route('get', '/api/lookup/mobile-operator-credit-types', list(f.mobileOperatorCreditTypes)),
      this.#route('get', '/api/lookup/mobile-operators', list(f.mobileOperators)),
      this.#route('get', '/api/lookup/banks', list(f.banks)),
      this.#route('get', '/api/lookup/transaction/status/:referenceNumber', (_r, params) => {
        const entry = this.#findTransaction(params.referenceNumber ?? '')
        if (!entry || entry.transactionId === params.referenceNumber) {
          return this.#problem(404, 'Not Found', `No transaction with reference ${params.referenceNumber}.`)
        }
        return HttpResponse.json(statusView(entry))
      }),
      this.#route('post', '/api/transactions/mobile-transfer', (request) => this.#transfer(request, 'mobile-transfer')),
      this.#route('post', '/api/transactions/cash-collection', (request) => this.#transfer(request, 'cash-collection')),
      this.#route('post', '/api/transactions/bank-transfer', (request) => this.#transfer(request, 'bank-transfer')),
      this.#route('post', '/api/transactions/confirm/:transactionId', (_r, params) =>
        this.#confirm(params.transactionId),
      ),
    ]
  }

  // ---- beneficiaries ------------------------------------------------------------------------

  async #createBeneficiary(request: Request): Promise<Response> {
    const body = await this.#body(request)
    if (body instanceof Response) return body
    const errors = { ...typeErrors(body, BENEFICIARY_TYPES), ...required(body, ['firstName', 'lastName', 'telephone']) }
    if (Object.keys(errors).length > 0) return this.#validation(errors)
    const record: SimulatedBeneficiary = { ...stringFields(body, BENEFICIARY_TYPES), beneficiaryId: this.#next('BEN') }
    this.#beneficiaries.push(record)
    if (this.#createdBody === 'empty') return new HttpResponse(null, { status: 201 })
    return HttpResponse.json(record, { status: 201 })
  }

  async #updateBeneficiary(request: Request): Promise<Response> {
    const body = await this.#body(request)
    if (body instanceof Response) return body
    const errors = {
      ...typeErrors(body, { ...BENEFICIARY_TYPES, beneficiaryId: 'string' }),
      ...required(body, ['beneficiaryId']),
    }
    if (Object.keys(errors).length > 0) return this.#validation(errors)
    const index = this.#beneficiaries.findIndex((b) => b.beneficiaryId === body.beneficiaryId)
    const existing = this.#beneficiaries[index]
    if (!existing) return this.#problem(404, 'Not Found', `No beneficiary ${String(body.beneficiaryId)}.`)
    const updated: SimulatedBeneficiary = { ...existing, ...stringFields(body, BENEFICIARY_TYPES) }
    this.#beneficiaries[index] = updated
    return HttpResponse.json(updated)
  }

  // ---- lookups ------------------------------------------------------------------------------

  #nameEnquiry(bankCode: unknown, accountNumber: unknown): Response {
    const errors: Errors = {}
    if (typeof bankCode !== 'string' || bankCode === '') errors.bankCode = ['The bankCode field is required.']
    if (typeof accountNumber !== 'string' || accountNumber === '') {
      errors.accountNumber = ['The accountNumber field is required.']
    }
    if (Object.keys(errors).length > 0) return this.#validation(errors)
    const account = this.fixtures.accounts.find((a) => a.bankCode === bankCode && a.accountNumber === accountNumber)
    if (!account) return this.#problem(404, 'Not Found', 'No account with this number at this bank.')
    return HttpResponse.json(account)
  }

  async #rates(request: Request): Promise<Response> {
    const body = await this.#body(request)
    if (body instanceof Response) return body
    const errors = typeErrors(body, RATE_TYPES)
    if (Object.keys(errors).length > 0) return this.#validation(errors)
    const amountType = body.amountType ?? (body.receivingAmountFX !== undefined ? 'DESTINATION' : 'SOURCE')
    if (amountType !== 'SOURCE' && amountType !== 'DESTINATION') {
      return this.#validation({ amountType: ['The amountType must be SOURCE or DESTINATION.'] })
    }
    if (body.sourceCurrency !== undefined && body.sourceCurrency !== 'SLE') {
      return this.#validation({ sourceCurrency: ['Only SLE can be sent.'] })
    }
    const currency = destinationCurrency(this.fixtures, body.destCurrency, body.destinationCountry)
    if (typeof currency !== 'string') return this.#validation(currency)
    const rate = this.fixtures.rates[currency] as number
    let sending: number
    let receiving: number
    if (amountType === 'SOURCE') {
      if (typeof body.sendingAmountSLE !== 'number') {
        return this.#validation({
          sendingAmountSLE: ['The sendingAmountSLE field is required when amountType is SOURCE.'],
        })
      }
      sending = body.sendingAmountSLE
      receiving = round2(sending * rate)
    } else {
      if (typeof body.receivingAmountFX !== 'number') {
        return this.#validation({
          receivingAmountFX: ['The receivingAmountFX field is required when amountType is DESTINATION.'],
        })
      }
      receiving = body.receivingAmountFX
      sending = Math.ceil((receiving / rate) * 100 - 1e-9) / 100
    }
    const moneyErrors = { ...sleErrors('sendingAmountSLE', sending), ...nonNegative('receivingAmountFX', receiving) }
    if (Object.keys(moneyErrors).length > 0) return this.#validation(moneyErrors)
    const fees = simulatorFees(this.fixtures, sending)
    return HttpResponse.json({
      sourceCurrency: 'SLE',
      destCurrency: currency,
      destinationCountry: body.destinationCountry ?? null,
      serviceType: body.serviceType ?? null,
      amountType,
      rate,
      sendingAmountSLE: sending,
      receivingAmountFX: receiving,
      fees,
      totalAmountSLE: round2(sending + fees),
    })
  }

  // ---- transactions -------------------------------------------------------------------------

  async #transfer(request: Request, kind: TransferKind): Promise<Response> {
    const body = await this.#body(request)
    if (body instanceof Response) return body
    const types = { 'mobile-transfer': MOBILE_TYPES, 'cash-collection': CASH_TYPES, 'bank-transfer': BANK_TYPES }[kind]
    const extra = {
      'mobile-transfer': ['beneficiaryMobileTransferNumber', 'beneficiaryMobileTransferNetworkId'],
      'cash-collection': ['collectionPointId'],
      'bank-transfer': ['bankId', 'accountNumber'],
    }[kind]
    const errors: Errors = {
      ...typeErrors(body, types),
      ...required(body, [
        'remitterId',
        'beneficiaryId',
        'destinationCountry',
        'amountSLE',
        'agentTransactionRef',
        ...extra,
      ]),
    }
    if (Object.keys(errors).length > 0) return this.#validation(errors)
    const amountSle = body.amountSLE as number
    const moneyErrors = sleErrors('amountSLE', amountSle)
    if (amountSle === 0) moneyErrors.amountSLE = ['The amountSLE must be greater than 0.']
    if (Object.keys(moneyErrors).length > 0) return this.#validation(moneyErrors)
    if (!this.#beneficiaries.some((b) => b.beneficiaryId === body.beneficiaryId)) {
      return this.#validation({ beneficiaryId: [`Unknown beneficiary ${String(body.beneficiaryId)}.`] })
    }
    const currency = destinationCurrency(this.fixtures, body.destinationCurrency, body.destinationCountry)
    if (typeof currency !== 'string') return this.#validation(currency)
    const unknownReferences = referenceErrors(this.fixtures, kind, body)
    if (Object.keys(unknownReferences).length > 0) return this.#validation(unknownReferences)
    const agentTransactionRef = body.agentTransactionRef as string
    const earlier = this.#ledger.find((entry) => entry.agentTransactionRef === agentTransactionRef)
    if (earlier) {
      return this.#problem(
        400,
        'Duplicate agentTransactionRef',
        `agentTransactionRef ${agentTransactionRef} was already used by transaction ${earlier.transactionId}.`,
        {
          errors: { agentTransactionRef: ['This agentTransactionRef has already been used.'] },
          transactionId: earlier.transactionId,
        },
      )
    }
    const entry: MutableEntry = {
      transactionId: this.#next('TX'),
      kind,
      agentTransactionRef,
      beneficiaryId: body.beneficiaryId as string,
      amountSLE: amountSle,
      fees: simulatorFees(this.fixtures, amountSle),
      destCurrency: currency,
      receivingAmountFX: round2(amountSle * (this.fixtures.rates[currency] as number)),
      status: 'ENTERED',
      referenceNumber: undefined,
      body: structuredClone(body),
    }
    this.#ledger.push(entry)
    return HttpResponse.json(
      {
        transactionId: entry.transactionId,
        agentTransactionRef,
        status: entry.status,
        transType: {
          'mobile-transfer': 'Mobile Transfer',
          'cash-collection': 'Cash Collection',
          'bank-transfer': 'Account',
        }[kind],
        amountSLE: entry.amountSLE,
        fees: entry.fees,
        destCurrency: entry.destCurrency,
        receivingAmountFX: entry.receivingAmountFX,
      },
      { status: 201 },
    )
  }

  #confirm(transactionId: string | undefined): Response {
    const entry = this.#ledger.find((e) => e.transactionId === transactionId)
    if (!entry) return this.#problem(404, 'Not Found', `No transaction ${transactionId}.`)
    if (entry.referenceNumber !== undefined) {
      return this.#problem(400, 'Transaction already confirmed', `Transaction ${transactionId} is already confirmed.`, {
        referenceNumber: entry.referenceNumber,
      })
    }
    entry.referenceNumber = this.#next('RN')
    entry.status = 'AGENT_OK'
    return HttpResponse.json({
      transactionId: entry.transactionId,
      referenceNumber: entry.referenceNumber,
      status: entry.status,
    })
  }
}
