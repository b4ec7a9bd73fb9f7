/**
 * Property tests (issue 8, fast-check): encoders, the card signer and every request validator over
 * arbitrary unicode input (astral code points and lone surrogates included). Validators: each call
 * ends in a `RequestValidationError` with nothing sent, or sends a well-formed request; never
 * anything else. Every `fc.assert` runs with a fixed seed; the inputs tried are counted for the report.
 */

import { createHash } from 'node:crypto'
import { asciiUpper, explainSignature, SIGNED_OPERATIONS, sign } from '@paywire/card-gateway'
import { PaywireError, RequestValidationError, Secret } from '@paywire/core'
import { type AnyOperation, formBody, jsonBody, rowArguments, withQuery } from '@paywire/core/engine'
import { faults, type RecordedRequest, startFaultServer } from '@paywire/core/testing'
import { Remittance } from '@paywire/remittance'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BILL_KIT } from '../../packages/bill-payment/test/endpoint-kit.js'
import { CARD_KIT } from '../../packages/card-gateway/test/endpoint-kit.js'
import { REMITTANCE_KIT } from '../../packages/remittance/test/endpoint-kit.js'
import type { ChecklistClient, ChecklistPackage } from '../support/endpoint-checklist.js'
import { rowMethod } from '../support/row-method.js'
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
  // Not published: the client names them (CREATE_SCHEDULE_INPUTS below).
  createSchedule: { action: 'CREATE_SCHEDULE', hashInputs: [] },
  deleteSchedule: { action: 'DELETE_SCHEDULE', hashInputs: ['schedule_id'] },
  updateSchedule: { action: 'UPDATE_SCHEDULE', hashInputs: ['schedule_id'] },
}

/** The Checkout operations' signed fields, restated from the spec (not read from the SDK). */
const CHECKOUT_HASH_INPUTS: Record<string, readonly string[]> = {
  'checkout.purchase': ['order.number', 'order.amount', 'order.currency', 'order.description'],
  'checkout.credit': ['order_id', 'order_amount', 'order_currency', 'order_description'],
  'checkout.status': ['payment_id', 'order_id'],
}

function readPath(fields: Record<string, unknown>, path: string): string {
  let current: unknown = fields
  for (const step of path.split('.')) current = (current as Record<string, unknown> | undefined)?.[step]
  return current === undefined || current === null ? '' : String(current)
}

// ---- every row of a package's table, from the table ------------------------------------------------

type Kit = ChecklistPackage<ChecklistClient & object, unknown>

/** A row's method on `client`, called with `input`: its arguments (`rowArguments`) then its options, or only its options when it takes none. */
function rowSend(client: object, group: string, method: string, row: AnyOperation): Send {
  const fn = rowMethod(client, group, method)
  const takesArguments = rowArguments(row).length > 0
  return (input) => {
    const [args, key] = input as [unknown[], string | undefined]
    const options = key === undefined ? {} : { idempotencyKey: key }
    return takesArguments ? fn(...args, options) : fn(...args)
  }
}

/**
 * Bodies shaped like the row's example: the example itself, the example with one member changed,
 * dropped or added (the validators' edges), its member names with arbitrary values (nested objects
 * shaped the same way), or anything at all.
 */
function shapeOf(example: unknown, text: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  if (typeof example !== 'object' || example === null || Array.isArray(example)) return params(text, ['a', 'b'])
  const base = example as Record<string, unknown>
  const keys = Object.keys(base)
  const nested: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [key, member] of Object.entries(base)) {
    if (typeof member === 'object' && member !== null && !Array.isArray(member)) nested[key] = shapeOf(member, text)
  }
  const changed = fc
    .tuple(fc.oneof(fc.constantFrom(...keys), text), fc.option(value(text), { nil: undefined, freq: 4 }))
    .map(([key, v]) => {
      const copy: Record<string, unknown> = { ...base }
      if (v === undefined) delete copy[key]
      else copy[key] = v
      return copy
    })
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(base) },
    { weight: 4, arbitrary: changed },
    { weight: 3, arbitrary: params(text, keys, nested) },
  )
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
      const places = rowArguments(row)
      const pathAt = places.findIndex((place) => typeof place === 'object')
      // One arbitrary per argument, each shaped like the row's example of that argument.
      const argument: fc.Arbitrary<unknown[]> =
        places.length === 0
          ? fc.tuple(fc.record({ idempotencyKey: value(text) }, { requiredKeys: [] }))
          : fc.tuple(
              ...places.map((place, i) => {
                const example = examples.get(row.name)?.[i]
                if (typeof place === 'object')
                  return fc.oneof({ weight: 5, arbitrary: pathText }, fc.integer(), {
                    weight: 1,
                    arbitrary: fc.anything(),
                  })
                return place === 'query'
                  ? fc.oneof(fc.constant(undefined), shapeOf(example, text))
                  : shapeOf(example, text)
              }),
            )
      const key = row.idempotency && places.length > 0 ? fc.option(text, { nil: undefined }) : fc.constant(undefined)
      return {
        name: `${kit.name} ${row.name}`,
        input: fc.tuple(argument, key),
        send: rowSend(client, group, method, row),
        wellFormed: (request, input) => {
          const [args, given] = input as [unknown[], string | undefined]
          expect(request.method).toBe(row.method)
          const path = request.url.split('?')[0] ?? ''
          if (typeof row.path === 'string' && pathAt !== -1) {
            // The path value is one segment where the template's variable stands, whatever follows it.
            const prefix = row.path.slice(0, row.path.indexOf('{'))
            const suffix = row.path.slice(row.path.indexOf('}') + 1)
            expect(path.startsWith(prefix) && path.endsWith(suffix)).toBe(true)
            const segment = path.slice(prefix.length, path.length - suffix.length)
            expect(segment).not.toContain('/')
            expect(decodeURIComponent(segment)).toBe(String(args[pathAt]))
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

/** CREATE_SCHEDULE's inputs are not published: the client names them, and the oracle restates them. */
const CREATE_SCHEDULE_INPUTS = ['name', 'interval_length'] as const

function cardCases(text: fc.Arbitrary<string>, pathText: fc.Arbitrary<string>): Promise<MethodCase[]> {
  const gw = cardGateway(server.url, { maxRetries: 0, hashInputs: { 's2s.createSchedule': CREATE_SCHEDULE_INPUTS } })
  const kit = CARD_KIT as unknown as Kit
  return exampleArguments(kit).then((examples) =>
    rowCases(kit, examples, gw, text, pathText, (row, request) => {
      if (row.encoding === 'form') {
        const fields = Object.fromEntries(new URLSearchParams(request.body))
        // An action the restated table does not know yet is held to the SDK's published inputs.
        const oracle = S2S_WIRE[row.name.slice('s2s.'.length)] ?? {
          action: SIGNED_OPERATIONS[row.name as keyof typeof SIGNED_OPERATIONS]?.action ?? '',
          hashInputs: SIGNED_OPERATIONS[row.name as keyof typeof SIGNED_OPERATIONS]?.inputs ?? [],
        }
        expect(fields['action']).toBe(oracle.action)
        expect(fields['client_key']).toBe(SECRETS.cardClientKey)
        // Signed over the very strings that arrived (what the gateway recomputes).
        const inputs = row.name === 's2s.createSchedule' ? CREATE_SCHEDULE_INPUTS : oracle.hashInputs
        expect(fields['hash']).toBe(
          referenceSign(
            inputs.map((n) => fields[n] ?? ''),
            SECRETS.cardPassword,
          ),
        )
        return
      }
      const body = JSON.parse(request.body) as Record<string, unknown>
      expect(body['merchant_key']).toBe(SECRETS.cardMerchantKey)
      const inputs =
        CHECKOUT_HASH_INPUTS[row.name] ?? SIGNED_OPERATIONS[row.name as keyof typeof SIGNED_OPERATIONS]?.inputs ?? []
      expect(body['hash']).toBe(
        referenceSign(
          inputs.map((n) => readPath(body, n)),
          SECRETS.cardPassword,
        ),
      )
    }),
  )
}

function remittanceCases(text: fc.Arbitrary<string>, pathText: fc.Arbitrary<string>): Promise<MethodCase[]> {
  const client = remittance(server.url, { maxRetries: 0 })
  const kit = REMITTANCE_KIT as unknown as Kit
  return exampleArguments(kit).then((examples) =>
    rowCases(kit, examples, client, text, pathText, (_row, request) => {
      expect(request.headers['x-code']).toBe(SECRETS.remittanceApiKey)
    }),
  )
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

/** Calls that were sent, per case: a case whose every input was refused would prove nothing of the wire. */
const sentByCase = new Map<string, number>()

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
      // This server's one shape names another subject: on a kept-alive connection it is not believed.
      // A lookup asks once more on a connection of its own (the same request); a CAPTURE or VOID is
      // settled by one GET_TRANS_STATUS. Nothing else follows, and never more than one.
      const first = server.requests[before] as RecordedRequest
      const after = server.requests.slice(before + 1)
      const same = (r: RecordedRequest) => r.method === first.method && r.url === first.url && r.body === first.body
      expect(after.every((r) => same(r) || r.body.includes('action=GET_TRANS_STATUS'))).toBe(true)
      expect(after.length).toBeLessThanOrEqual(1)
      // Sent: any error now is the answer's (this server answers one shape for every path), never a crash.
      if (result.error !== undefined) expect(result.error).toBeInstanceOf(PaywireError)
      validatorOutcomes.sent += 1
      sentByCase.set(method.name, (sentByCase.get(method.name) ?? 0) + 1)
      method.wellFormed(server.requests[before] as RecordedRequest, input)
    }),
    runs,
  )
}

describe('request validators: RequestValidationError with nothing sent, or a well-formed request', () => {
  const text = anyText
  // Path variables: well-formed unicode here; lone surrogates have their own test below.
  const cases = async () => [
    ...(await cardCases(text, wellFormedText)),
    ...(await remittanceCases(text, wellFormedText)),
    ...(await billCases(text, wellFormedText)),
  ]
  it('every method of the three clients, over arbitrary unicode and arbitrary values', async () => {
    const all = await cases()
    for (const method of all) await validatorProperty(method, WIRE_RUNS)
    const neverSent = all.filter((method) => !sentByCase.get(method.name)).map((method) => method.name)
    expect(neverSent, 'cases whose every input was refused').toEqual([])
  })

  // Found by this property: a lone surrogate used to escape as a URIError; core's pathSegment now
  // refuses ill-formed text with the variable's name.
  it('path variables with a lone surrogate are refused with RequestValidationError', async () => {
    const surrogateText = fc.tuple(wellFormedText, loneSurrogate, wellFormedText).map(([a, s, b]) => `${a}${s}${b}`)
    const byPath = [
      ...(await cardCases(text, surrogateText)),
      ...(await remittanceCases(text, surrogateText)),
      ...(await billCases(text, surrogateText)),
    ].filter((m) => /get|search|confirm|transactionStatus/i.test(m.name))
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
