/**
 * Property tests (issue 8, fast-check): encoders, the card signer and every request validator over
 * arbitrary unicode input (astral code points and lone surrogates included). Validators: each call
 * ends in a `RequestValidationError` with nothing sent, or sends a well-formed request; never
 * anything else. Every `fc.assert` runs with a fixed seed; the inputs tried are counted for the report.
 */

import { createHash } from 'node:crypto'
import { asciiUpper, explainSignature, sign } from '@paywire/card-gateway'
import {
  type AnyOperation,
  formBody,
  jsonBody,
  PaywireError,
  RequestValidationError,
  Secret,
  withQuery,
} from '@paywire/core'
import { faults, type RecordedRequest, startFaultServer } from '@paywire/core/testing'
import { Remittance } from '@paywire/remittance'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BILL_KIT } from '../../packages/bill-payment/test/endpoint-kit.js'
import type { ChecklistClient, ChecklistPackage } from '../support/endpoint-checklist.js'
import { billPayment, cardGateway, outcome, remittance, SECRETS } from './support/packages.js'
import { recordResults } from './support/results.js'

const SEED = 8_2026
const PURE_RUNS = 1_000
const WIRE_RUNS = 60

const tried: Record<string, number> = {}
/** Validator calls: refused before sending vs sent (and checked on the wire). */
const validatorOutcomes = { refused: 0, sent: 0 }
/** `fc.assert` with the file's seed, counting every input tried. */
async function check<T>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>,
  numRuns: number,
): Promise<void> {
  await fc.assert(property as fc.IAsyncProperty<T>, { seed: SEED, numRuns })
  // Counted only once every run passed (a failing property stops early).
  tried[name] = (tried[name] ?? 0) + numRuns
}

// ---- arbitraries -------------------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code))
/** Any code point, astral included, plus lone surrogates (which are not valid UTF-16 text). */
const anyUnit = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('&', '=', '+', '%', '?', '#', '/', '.', ' ', '\u0000', '\r\n', 'é', 'ß', '😀'),
  },
  { weight: 1, arbitrary: loneSurrogate },
)
const anyText = fc.string({ unit: anyUnit, maxLength: 16 })
/** Well-formed unicode only (no lone surrogates). */
const wellFormedText = fc.string({ unit: 'binary', maxLength: 16 })

/** What `URLSearchParams` and UTF-8 make of a string: lone surrogates become U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
}

// ---- independent references ---------------------------------------------------------------------

function referenceUpper(text: string): string {
  return text.replace(/[a-z]/g, (c) => c.toUpperCase())
}

function referenceSign(values: readonly string[], password: string, digest: 'md5' | 'sha256' = 'md5'): string {
  const upper = referenceUpper(values.join('') + password)
  const inner = createHash(digest).update(Buffer.from(upper, 'utf8')).digest('hex')
  return createHash('sha1').update(Buffer.from(inner, 'latin1')).digest('hex')
}

afterAll(() => {
  const total = Object.values(tried).reduce((sum, n) => sum + n, 0)
  recordResults('properties', { seed: SEED, inputsTried: total, validatorOutcomes, byProperty: tried })
})

describe('encoders over arbitrary unicode', () => {
  it('formBody round-trips through URLSearchParams (lone surrogates arrive as U+FFFD), dropping undefined', () =>
    check(
      'formBody round-trip',
      fc.property(fc.dictionary(anyText, fc.option(anyText, { nil: undefined }), { maxKeys: 8 }), (fields) => {
        const body = formBody(fields)
        expect(body.contentType).toBe('application/x-www-form-urlencoded')
        const expected = Object.entries(fields)
          .filter((entry): entry is [string, string] => entry[1] !== undefined)
          .map(([k, v]) => [wellFormed(k), wellFormed(v)])
        expect([...new URLSearchParams(body.text)]).toEqual(expected)
        expect(body.text).toMatch(/^[A-Za-z0-9*\-._%+=&]*$/)
      }),
      PURE_RUNS,
    ))

  it('withQuery appends exactly the given parameters (arrays repeat, null/undefined dropped) and keeps the base', () =>
    check(
      'withQuery',
      fc.property(
        fc.constantFrom('https://api.example/v1/items', 'https://api.example/v1/items?fixed=1'),
        fc.dictionary(
          anyText,
          fc.oneof(
            fc.oneof(anyText, fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
            fc.array(fc.oneof(anyText, fc.integer(), fc.constant(null)), { maxLength: 3 }),
          ),
          { maxKeys: 6 },
        ),
        (base, query) => {
          const url = withQuery(base, query)
          expect(url.startsWith(base)).toBe(true)
          const parsed = new URL(url)
          expect(parsed.pathname).toBe('/v1/items')
          const expected: [string, string][] = base.includes('?') ? [['fixed', '1']] : []
          for (const [name, value] of Object.entries(query)) {
            for (const v of Array.isArray(value) ? value : [value]) {
              if (v !== undefined && v !== null) expected.push([wellFormed(name), wellFormed(String(v))])
            }
          }
          expect([...parsed.searchParams]).toEqual(expected)
        },
      ),
      PURE_RUNS,
    ))

  it('jsonBody is the JSON text of the value (JSON content type, parses back to the same value)', () =>
    check(
      'jsonBody',
      fc.property(fc.jsonValue(), (value) => {
        const body = jsonBody(value)
        expect(body.contentType).toBe('application/json')
        expect(JSON.stringify(JSON.parse(body.text))).toBe(JSON.stringify(value))
      }),
      PURE_RUNS,
    ))
})

describe('card signer against an independent reference', () => {
  it('asciiUpper uppercases a-z only (PHP strtoupper), leaving every other code unit as it is', () =>
    check(
      'asciiUpper',
      fc.property(anyText, (text) => {
        expect(asciiUpper(text)).toBe(referenceUpper(text))
        expect(asciiUpper(text)).toHaveLength(text.length)
      }),
      PURE_RUNS,
    ))

  it('sign(values, password) = sha1(hex(md5|sha256(UPPER(values + password)))) for any unicode input', () =>
    check(
      'sign',
      fc.property(
        fc.array(anyText, { maxLength: 6 }),
        anyText,
        fc.constantFrom('md5', 'sha256') as fc.Arbitrary<'md5' | 'sha256'>,
        (values, password, digest) => {
          const expected = referenceSign(values, password, digest)
          expect(sign(values, password, digest)).toBe(expected)
          expect(sign(values, new Secret(password), digest)).toBe(expected)
          expect(expected).toMatch(/^[0-9a-f]{40}$/)
        },
      ),
      PURE_RUNS,
    ))

  it('explainSignature gives the same hash and shows the password only as {password}/{PASSWORD}', () =>
    check(
      'explainSignature',
      fc.property(fc.array(anyText, { maxLength: 6 }), anyText, (values, password) => {
        const explained = explainSignature(values, password)
        expect(explained.hash).toBe(referenceSign(values, password))
        expect(explained.concatenation).toBe(`${values.join('')}{password}`)
        expect(explained.uppercased).toBe(`${referenceUpper(values.join(''))}{PASSWORD}`)
        expect(explained.inputs.map((input) => input.value)).toEqual(values)
      }),
      PURE_RUNS,
    ))
})

// ---- request validators -------------------------------------------------------------------------

/** An answer every method of the three clients accepts as a success. */
const SUCCESS = { result: 'SUCCESS', status: 'SETTLED', redirect_url: 'https://pay.example/s/1', trans_id: 't-1' }

/** The paths whose answer is a list (the typed results check the JSON kind: a list, not a record). */
const LIST_PATHS = [
  '/api/beneficiaries/posid/',
  '/api/beneficiaries/any/',
  '/api/beneficiaries/telephone/',
  '/api/lookup/destination-countries',
  '/api/lookup/delivery-bank-branches',
  '/api/lookup/delivery-banks',
  '/api/lookup/collection-points',
  '/api/lookup/mobile-operator-credit-types',
  '/api/lookup/mobile-operators',
  '/api/lookup/banks',
  '/api/catalog/get-all-products',
  '/api/transactions/all',
]

let server: Awaited<ReturnType<typeof startFaultServer>>
beforeAll(async () => {
  server = await startFaultServer((req, res, attempt) => {
    const path = (req.url ?? '').split('?')[0] ?? ''
    const list = LIST_PATHS.some((p) => path.startsWith(p)) || (req.method === 'GET' && path === '/api/transactions')
    return faults.json(200, list ? [SUCCESS] : SUCCESS)(req, res, attempt)
  })
  return () => server.close()
})

const value = (text: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: text },
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(text, { maxLength: 2 }),
    fc.dictionary(text, text, { maxKeys: 2 }),
  )

/** Objects with the method's own keys (and strays), or anything at all. */
function params(
  text: fc.Arbitrary<string>,
  keys: readonly string[],
  nested: Record<string, fc.Arbitrary<unknown>> = {},
) {
  const member = (key: string) => nested[key] ?? value(text)
  const shaped = fc
    .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: text }), {
      maxLength: keys.length + 1,
    })
    .chain((names) => fc.tuple(...names.map((name) => member(name).map((v) => [name, v] as const))))
    .map((pairs) => Object.fromEntries(pairs) as Record<string, unknown>)
  return fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: fc.anything() })
}

type Send = (input: unknown) => Promise<unknown>
interface MethodCase {
  readonly name: string
  readonly input: fc.Arbitrary<unknown>
  readonly send: Send
  /** Checks the request that reached the server for a successful call. */
  readonly wellFormed: (request: RecordedRequest, input: unknown) => void
}

/** Each action's wire name and signed fields, restated from the spec on purpose (not read from the SDK's table). */
const S2S_WIRE: Record<string, { action: string; hashInputs: readonly string[] }> = {
  getTransStatus: { action: 'GET_TRANS_STATUS', hashInputs: ['trans_id'] },
  getTransStatusByOrder: { action: 'GET_TRANS_STATUS_BY_ORDER', hashInputs: ['order_id'] },
  capture: { action: 'CAPTURE', hashInputs: ['trans_id'] },
  void: { action: 'VOID', hashInputs: ['trans_id'] },
  creditVoid: { action: 'CREDITVOID', hashInputs: ['trans_id'] },
  recurringSale: { action: 'RECURRING_SALE', hashInputs: ['order_id'] },
  // Not published: the client refuses to send it unless hashInputs names them.
  createSchedule: { action: 'CREATE_SCHEDULE', hashInputs: [] },
  deleteSchedule: { action: 'DELETE_SCHEDULE', hashInputs: ['schedule_id'] },
  updateSchedule: { action: 'UPDATE_SCHEDULE', hashInputs: ['schedule_id'] },
}

const S2S_FIELDS: Record<string, readonly string[]> = {
  getTransStatus: ['trans_id'],
  getTransStatusByOrder: ['order_id'],
  capture: ['trans_id', 'amount'],
  void: ['trans_id'],
  creditVoid: ['trans_id', 'amount'],
  recurringSale: [
    'order_id',
    'order_amount',
    'order_description',
    'order_currency',
    'recurring_first_trans_id',
    'recurring_token',
    'term_url_3ds',
  ],
  createSchedule: ['name', 'interval_length', 'interval_unit', 'payments_count', 'schedule_id'],
  deleteSchedule: ['schedule_id'],
  updateSchedule: ['schedule_id', 'name', 'interval_length', 'interval_unit', 'payments_count'],
}

function readPath(fields: Record<string, unknown>, path: string): string {
  let current: unknown = fields
  for (const step of path.split('.')) current = (current as Record<string, unknown> | undefined)?.[step]
  return current === undefined || current === null ? '' : String(current)
}

function cardCases(text: fc.Arbitrary<string>): MethodCase[] {
  const gw = cardGateway(server.url, { maxRetries: 0 })
  const s2s = Object.keys(S2S_FIELDS).map((method): MethodCase => {
    const row = S2S_WIRE[method] as { action: string; hashInputs: readonly string[] }
    return {
      name: `card s2s.${method}`,
      input: params(text, S2S_FIELDS[method] as readonly string[]),
      send: (input) => (gw.s2s[method as keyof typeof gw.s2s] as (p: unknown) => Promise<unknown>).call(gw.s2s, input),
      wellFormed: (request) => {
        expect(request.url).toBe('/post')
        expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded')
        const fields = Object.fromEntries(new URLSearchParams(request.body))
        expect(fields['action']).toBe(row.action)
        expect(fields['client_key']).toBe(SECRETS.cardClientKey)
        // Signed over the very strings that arrived (what the gateway recomputes).
        expect(fields['hash']).toBe(
          referenceSign(
            row.hashInputs.map((n) => fields[n] ?? ''),
            SECRETS.cardPassword,
          ),
        )
      },
    }
  })
  const orderArb = params(text, ['number', 'amount', 'currency', 'description'])
  const checkout = (
    method: 'purchase' | 'credit' | 'status',
    path: string,
    keys: readonly string[],
    hashInputs: readonly string[],
  ): MethodCase => ({
    name: `card checkout.${method}`,
    input: params(text, keys, { order: orderArb }),
    send: (input) => (gw.checkout[method] as (p: unknown) => Promise<unknown>).call(gw.checkout, input),
    wellFormed: (request) => {
      expect(request.url).toBe(path)
      const body = JSON.parse(request.body) as Record<string, unknown>
      expect(body['merchant_key']).toBe(SECRETS.cardMerchantKey)
      expect(body['hash']).toBe(
        referenceSign(
          hashInputs.map((n) => readPath(body, n)),
          SECRETS.cardPassword,
        ),
      )
    },
  })
  return [
    ...s2s,
    checkout(
      'purchase',
      '/api/v1/session',
      ['order', 'success_url', 'cancel_url', 'methods', 'req_token', 'customer'],
      ['order.number', 'order.amount', 'order.currency', 'order.description'],
    ),
    checkout(
      'credit',
      '/api/v1/payment/card/credit',
      ['order_id', 'order_amount', 'order_currency', 'order_description', 'card_token', 'name'],
      ['order_id', 'order_amount', 'order_currency', 'order_description'],
    ),
    checkout('status', '/api/v1/payment/status', ['payment_id', 'order_id'], ['payment_id', 'order_id']),
  ]
}

function lastSegment(request: RecordedRequest): string {
  return decodeURIComponent(request.url.split('?')[0]?.split('/').at(-1) ?? '')
}

function remittanceCases(text: fc.Arbitrary<string>, pathText: fc.Arbitrary<string>): MethodCase[] {
  const client = remittance(server.url, { maxRetries: 0 })
  const jsonChecks = (path: string) => (request: RecordedRequest) => {
    expect(request.url).toBe(path)
    expect(request.headers['x-code']).toBe(SECRETS.remittanceApiKey)
    expect(request.headers['content-type']).toBe('application/json')
    expect(typeof JSON.parse(request.body)).toBe('object')
  }
  const body = (name: string, path: string, keys: readonly string[], send: Send): MethodCase => ({
    name: `remittance ${name}`,
    input: params(text, keys),
    send,
    wellFormed: jsonChecks(path),
  })
  const segment = (name: string, prefix: string, send: Send): MethodCase => ({
    name: `remittance ${name}`,
    input: fc.oneof({ weight: 5, arbitrary: pathText }, { weight: 1, arbitrary: fc.anything() }),
    send,
    wellFormed: (request, input) => {
      expect(request.url.startsWith(prefix)).toBe(true)
      expect(request.url.slice(prefix.length)).not.toContain('/')
      expect(lastSegment(request)).toBe(input)
      expect(request.headers['x-code']).toBe(SECRETS.remittanceApiKey)
    },
  })
  const query = (name: keyof typeof client.lookup, path: string): MethodCase => ({
    name: `remittance lookup.${name}`,
    input: fc.oneof(fc.constant(undefined), params(text, ['bankCode', 'accountNumber', 'countryCode'])),
    send: (input) => (client.lookup[name] as (q: unknown) => Promise<unknown>).call(client.lookup, input),
    wellFormed: (request) => {
      expect(request.url.split('?')[0]).toBe(path)
      expect(request.body).toBe('')
    },
  })
  const transfer = [
    'remitterId',
    'beneficiaryId',
    'destinationCountry',
    'amountSLE',
    'fees',
    'agentTransactionRef',
    'purpose',
  ]
  return [
    body('beneficiaries.create', '/api/beneficiaries', ['firstName', 'lastName', 'telephone', 'posid'], (i) =>
      client.beneficiaries.create(i as never),
    ),
    body('beneficiaries.update', '/api/beneficiaries', ['beneficiaryId', 'firstName', 'telephone'], (i) =>
      client.beneficiaries.update(i as never),
    ),
    segment('beneficiaries.getByPosId', '/api/beneficiaries/posid/', (i) =>
      client.beneficiaries.getByPosId(i as never),
    ),
    segment('beneficiaries.search', '/api/beneficiaries/any/', (i) => client.beneficiaries.search(i as never)),
    segment('beneficiaries.getByTelephone', '/api/beneficiaries/telephone/', (i) =>
      client.beneficiaries.getByTelephone(i as never),
    ),
    body(
      'lookup.rates',
      '/api/lookup/rates',
      ['sendingAmountSLE', 'receivingAmountFX', 'amountType', 'destCurrency'],
      (i) => client.lookup.rates(i as never),
    ),
    body('lookup.nameEnquiry', '/api/lookup/name-enquiry', ['bankCode', 'accountNumber'], (i) =>
      client.lookup.nameEnquiry(i as never),
    ),
    query('nameEnquiryLookup', '/api/lookup/name-enquiry'),
    query('destinationCountries', '/api/lookup/destination-countries'),
    query('deliveryBankBranches', '/api/lookup/delivery-bank-branches'),
    query('deliveryBanks', '/api/lookup/delivery-banks'),
    query('collectionPoints', '/api/lookup/collection-points'),
    query('mobileOperatorCreditTypes', '/api/lookup/mobile-operator-credit-types'),
    query('mobileOperators', '/api/lookup/mobile-operators'),
    query('banks', '/api/lookup/banks'),
    segment('lookup.transactionStatus', '/api/lookup/transaction/status/', (i) =>
      client.lookup.transactionStatus(i as never),
    ),
    body(
      'transactions.mobileTransfer',
      '/api/transactions/mobile-transfer',
      [...transfer, 'beneficiaryMobileTransferNetworkId'],
      (i) => client.transactions.mobileTransfer(i as never),
    ),
    body(
      'transactions.cashCollection',
      '/api/transactions/cash-collection',
      [...transfer, 'collectionPointId', 'collectionPin'],
      (i) => client.transactions.cashCollection(i as never),
    ),
    body('transactions.bankTransfer', '/api/transactions/bank-transfer', [...transfer, 'bankId'], (i) =>
      client.transactions.bankTransfer(i as never),
    ),
    segment('transactions.confirm', '/api/transactions/confirm/', (i) => client.transactions.confirm(i as never)),
  ]
}

// ---- every row of a package's table, from the table ------------------------------------------------

type Kit = ChecklistPackage<ChecklistClient & object, unknown>

/** A row's method on `client`, called with `input` (its argument, or its options when it takes none). */
function rowSend(client: object, group: string, method: string, row: AnyOperation): Send {
  const resource = (client as Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>)[group]
  return (input) => {
    const [arg, key] = input as [unknown, string | undefined]
    const options = key === undefined ? {} : { idempotencyKey: key }
    const fn = resource?.[method]
    if (typeof fn !== 'function') throw new Error(`${row.name} is not a method`)
    return takesArgument(row) ? fn.call(resource, arg, options) : fn.call(resource, arg)
  }
}

function takesArgument(row: AnyOperation): boolean {
  return row.params !== undefined || row.query === true || (typeof row.path === 'string' && row.path.includes('{'))
}

/** The member names of an example body (and of its object members), which the arbitrary input reuses. */
function shapeOf(example: unknown, text: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  if (typeof example !== 'object' || example === null || Array.isArray(example)) return params(text, ['a', 'b'])
  const nested: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [key, member] of Object.entries(example)) {
    if (typeof member === 'object' && member !== null && !Array.isArray(member)) nested[key] = shapeOf(member, text)
  }
  return params(text, Object.keys(example), nested)
}

/**
 * One case per row of a package's table: arbitrary arguments shaped like the row's example, and an
 * arbitrary `idempotencyKey` option on the rows that carry one. A request that arrived must be the
 * row's: its method, its path (a path value as the last segment, encoded), its body encoding, the key
 * where the row sends it, and what the package adds (`wire`: credentials, signature).
 */
function rowCases(
  kit: Kit,
  examples: ReadonlyMap<string, readonly unknown[]>,
  client: object,
  text: fc.Arbitrary<string>,
  pathText: fc.Arbitrary<string>,
  wire: (row: AnyOperation, request: RecordedRequest) => void,
): MethodCase[] {
  return Object.entries(kit.endpoints).flatMap(([group, table]) =>
    Object.entries(table).map(([method, row]): MethodCase => {
      const example = examples.get(row.name)?.[0]
      const pathValue = row.params === undefined && row.query !== true && takesArgument(row)
      const argument: fc.Arbitrary<unknown> = !takesArgument(row)
        ? fc.record({ idempotencyKey: value(text) }, { requiredKeys: [] })
        : pathValue
          ? fc.oneof({ weight: 5, arbitrary: pathText }, fc.integer(), { weight: 1, arbitrary: fc.anything() })
          : row.query
            ? fc.oneof(fc.constant(undefined), shapeOf(example, text))
            : shapeOf(example, text)
      const key = row.idempotency && takesArgument(row) ? fc.option(text, { nil: undefined }) : fc.constant(undefined)
      return {
        name: `${kit.name} ${row.name}`,
        input: fc.tuple(argument, key),
        send: rowSend(client, group, method, row),
        wellFormed: (request, input) => {
          const [arg, given] = input as [unknown, string | undefined]
          expect(request.method).toBe(row.method)
          const path = request.url.split('?')[0] ?? ''
          if (typeof row.path === 'string' && pathValue) {
            const prefix = row.path.slice(0, row.path.indexOf('{'))
            expect(path.startsWith(prefix)).toBe(true)
            expect(path.slice(prefix.length)).not.toContain('/')
            expect(lastSegment(request)).toBe(String(arg))
          } else if (typeof row.path === 'string') expect(path).toBe(row.path)
          if (row.params !== undefined) {
            const type = row.encoding === 'form' ? 'application/x-www-form-urlencoded' : 'application/json'
            expect(request.headers['content-type']).toBe(type)
          } else expect(request.body).toBe('')
          const idempotency = row.idempotency
          if (idempotency && 'header' in idempotency) {
            const sent = request.headers[idempotency.header.toLowerCase()]
            if (given !== undefined) expect(sent).toBe(given)
            if (sent !== undefined) expect(sent).toMatch(/^[\x21-\x7e]{1,255}$/)
          } else if (idempotency && given !== undefined) {
            expect((JSON.parse(request.body) as Record<string, unknown>)[idempotency.bodyField]).toBe(given)
          }
          wire(row, request)
        },
      }
    }),
  )
}

/** Each kit's example arguments by operation, made once on the kit's own simulator. */
async function exampleArguments(kit: Kit): Promise<Map<string, readonly unknown[]>> {
  const simulator = await kit.startSimulator()
  const client = kit.client(simulator, simulator.url)
  const found = new Map<string, readonly unknown[]>()
  try {
    for (const [group, table] of Object.entries(kit.endpoints)) {
      for (const [method, row] of Object.entries(table)) {
        const make = kit.examples[group]?.[method]
        if (make) found.set(row.name, (await make(kit.setup(client, simulator))) as unknown[])
      }
    }
  } finally {
    await client.close()
    await simulator.close()
  }
  return found
}

function billCases(text: fc.Arbitrary<string>, pathText: fc.Arbitrary<string>): Promise<MethodCase[]> {
  const client = billPayment(server.url, { maxRetries: 0 })
  const kit = BILL_KIT as unknown as Kit
  return exampleArguments(kit).then((examples) =>
    rowCases(kit, examples, client, text, pathText, (_row, request) => {
      expect(request.headers['x-service-internal-client-id']).toBe(SECRETS.billClientId)
      expect(request.headers['x-service-client-secret']).toBe(SECRETS.billClientSecret)
    }),
  )
}

/** Runs one method over its inputs: RequestValidationError with nothing sent, or a well-formed request. */
async function validatorProperty(method: MethodCase, runs: number, label = method.name) {
  await check(
    `validator ${label}`,
    fc.asyncProperty(method.input, async (input) => {
      const before = server.requests.length
      const result = await outcome(method.send(input))
      if (result.error !== undefined && server.requests.length === before) {
        expect(result.error, `${method.name} threw something other than RequestValidationError`).toBeInstanceOf(
          RequestValidationError,
        )
        expect((result.error as RequestValidationError).issues.length).toBeGreaterThan(0)
        expect(server.requests.length, 'a refused request was sent anyway').toBe(before)
        validatorOutcomes.refused += 1
        return
      }
      expect(server.requests.length).toBe(before + 1)
      // Sent: any error now is the answer's (this server answers one shape for every path), never a crash.
      if (result.error !== undefined) expect(result.error).toBeInstanceOf(PaywireError)
      validatorOutcomes.sent += 1
      method.wellFormed(server.requests[before] as RecordedRequest, input)
    }),
    runs,
  )
}

describe('request validators: RequestValidationError with nothing sent, or a well-formed request', () => {
  const text = anyText
  // Path variables: well-formed unicode here; lone surrogates have their own test below.
  const cases = async () => [
    ...cardCases(text),
    ...remittanceCases(text, wellFormedText),
    ...(await billCases(text, wellFormedText)),
  ]
  it('every method of the three clients, over arbitrary unicode and arbitrary values', async () => {
    for (const method of await cases()) await validatorProperty(method, WIRE_RUNS)
  })

  // Found by this property: a lone surrogate used to escape as a URIError; core's pathSegment now
  // refuses ill-formed text with the variable's name.
  it('path variables with a lone surrogate are refused with RequestValidationError', async () => {
    const surrogateText = fc.tuple(wellFormedText, loneSurrogate, wellFormedText).map(([a, s, b]) => `${a}${s}${b}`)
    const byPath = [...remittanceCases(text, surrogateText), ...(await billCases(text, surrogateText))].filter((m) =>
      /get|search|confirm|transactionStatus/i.test(m.name),
    )
    for (const method of byPath) await validatorProperty(method, 20, `${method.name} (lone surrogate path)`)
  })

  // Found by this property: header values undici refuses used to be reported as possibly sent; core
  // now checks every header before the first attempt and the clients check their credentials.
  it('header values undici refuses (API key, per-call headers) are refused before sending, never reported as sent', async () => {
    const badHeader = fc.oneof(
      fc.tuple(wellFormedText, fc.constantFrom('\n', '\r', '\u0000'), wellFormedText).map((p) => p.join('')),
      fc
        .tuple(
          wellFormedText,
          fc.string({
            unit: fc.integer({ min: 0x100, max: 0x2fff }).map((c) => String.fromCharCode(c)),
            minLength: 1,
            maxLength: 4,
          }),
        )
        .map((p) => p.join('')),
    )
    const gw = cardGateway(server.url, { maxRetries: 0 })
    const remit = remittance(server.url, { maxRetries: 0 })
    const bills = billPayment(server.url, { maxRetries: 0 })
    const send = {
      'remittance apiKey': async (bad: string) => {
        const client = new Remittance({ baseUrl: server.url, apiKey: bad, maxRetries: 0 })
        return client.lookup.banks().finally(() => client.close())
      },
      'card headers': (bad: string) => gw.s2s.getTransStatus({ trans_id: 't' }, { headers: { 'x-trace': bad } }),
      'remittance headers': (bad: string) => remit.lookup.banks(undefined, { headers: { 'x-trace': bad } }),
      'bill headers': (bad: string) => bills.catalog.list({ headers: { 'x-trace': bad } }),
    }
    try {
      await check(
        'header values refused before sending',
        fc.asyncProperty(
          badHeader,
          fc.constantFrom(...(Object.keys(send) as (keyof typeof send)[])),
          async (bad, where) => {
            const before = server.requests.length
            const result = await outcome(send[where](bad))
            expect(server.requests.length).toBe(before)
            expect(result.error).toMatchObject({ requestSent: false })
          },
        ),
        25,
      )
    } finally {
      await Promise.all([gw.close(), remit.close(), bills.close()])
    }
  })
})
