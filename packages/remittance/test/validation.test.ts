import { describe, expect, it } from 'vitest'
import { Remittance, RequestValidationError, Secret } from '../src/index.js'
import { createBeneficiary, mobileTransferBody, setup } from './helpers.js'

async function refused(promise: Promise<unknown>): Promise<RequestValidationError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(RequestValidationError)
  return error as RequestValidationError
}

describe('validation before sending', () => {
  it('a number sent as a string, or the reverse, is refused with the field path, and nothing is sent', async () => {
    const { remit, server } = await setup()
    const error = await refused(
      // @ts-expect-error wrong JSON types on purpose
      remit.lookup.rates({ sendingAmountSLE: '100.00', destCurrency: 42 }),
    )
    expect(error.issues).toEqual([
      { path: 'sendingAmountSLE', message: 'must be a number, not a string' },
      { path: 'destCurrency', message: 'must be a string, not a number' },
    ])
    expect(error.requestSent).toBe(false)
    expect(server.requests).toHaveLength(0)
  })

  it('beneficiary fields are strings: a numeric telephone is refused', async () => {
    const { remit, server } = await setup()
    // @ts-expect-error telephone must be a string
    const error = await refused(remit.beneficiaries.create({ firstName: 'A', telephone: 23276123456 }))
    expect(error.issues.map((i) => i.path)).toEqual(['telephone'])
    expect(server.requests).toHaveLength(0)
  })

  it('transaction amounts: amountSLE and fees are numbers, amountToSend is a string', async () => {
    const { remit, server } = await setup()
    const body = { ...mobileTransferBody('BEN1'), amountSLE: '1000', fees: '15', amountToSend: 1000 }
    // @ts-expect-error wrong JSON types on purpose
    const error = await refused(remit.transactions.mobileTransfer(body))
    expect(error.issues.map((i) => i.path)).toEqual(['amountToSend', 'amountSLE', 'fees'])
    expect(server.requests).toHaveLength(0)
  })

  it.each([
    ['negative', -1, 'must be at least 0'],
    ['infinite', Number.POSITIVE_INFINITY, 'must be a finite number, not Infinity (JSON cannot carry it)'],
    ['NaN', Number.NaN, 'must be a finite number, not NaN (JSON cannot carry it)'],
    ['3 decimals', 10.005, 'SLE amounts have at most 2 decimal places'],
  ])('an SLE amount that is %s is refused', async (_name, amountSLE, message) => {
    const { remit, server } = await setup()
    const error = await refused(remit.transactions.cashCollection({ amountSLE }))
    expect(error.issues).toEqual([{ path: 'amountSLE', message }])
    expect(server.requests).toHaveLength(0)
  })

  it('SLE amounts with 2 decimals pass, and FX amounts may have more', async () => {
    const { remit, server } = await setup()
    await remit.lookup.rates({ sendingAmountSLE: 0.29, destCurrency: 'GHS' })
    await remit.lookup.rates({ receivingAmountFX: 12.345, amountType: 'DESTINATION', destCurrency: 'GHS' })
    expect(server.requests).toHaveLength(2)
  })

  it('negative fees and receivingAmountFX are refused', async () => {
    const { remit } = await setup()
    expect((await refused(remit.transactions.mobileTransfer({ fees: -0.01 }))).issues[0]?.path).toBe('fees')
    expect((await refused(remit.lookup.rates({ receivingAmountFX: -5 }))).issues[0]?.path).toBe('receivingAmountFX')
  })

  it('an unknown field of a documented body is refused with a "did you mean" hint', async () => {
    const { remit } = await setup()
    // @ts-expect-error misspelt field
    const error = await refused(remit.beneficiaries.create({ firstname: 'A' }))
    expect(error.issues).toEqual([{ path: 'firstname', message: 'unknown field; did you mean "firstName"?' }])
  })

  it('bodies whose fields are not published (rule Resources 8) accept any JSON member, but refuse what JSON cannot carry', async () => {
    const { remit, server } = await setup()
    const error = await refused(
      remit.lookup.nameEnquiry({ bankCode: 'RCB', extra: { when: new Date(0), n: [1, Number.NaN] } }),
    )
    // Every problem is named, as bill payment names them (one JSON check): the Date and the NaN.
    expect(error.issues).toEqual([
      { path: 'extra.when', message: 'a Date is not a plain JSON value (send a string, e.g. date.toISOString())' },
      { path: 'extra.n.1', message: 'NaN is not a JSON number (it would be sent as null)' },
    ])
    const nan = await refused(remit.lookup.nameEnquiry({ extra: { n: [1, Number.NaN] } }))
    expect(nan.issues[0]?.path).toBe('extra.n.1')
    expect(server.requests).toHaveLength(0)
  })

  it('the known fields of an open body keep their types (bank transfer amountSLE is a number)', async () => {
    const { remit } = await setup()
    // @ts-expect-error amountSLE is typed even in the open body
    const error = await refused(remit.transactions.bankTransfer({ amountSLE: '5', bankId: 'X' }))
    expect(error.issues.map((i) => i.path)).toEqual(['amountSLE'])
  })

  it('an empty agentTransactionRef is refused: it could not identify the transfer', async () => {
    const { remit } = await setup()
    const error = await refused(remit.transactions.mobileTransfer({ agentTransactionRef: '' }))
    expect(error.issues).toEqual([{ path: 'agentTransactionRef', message: 'must not be empty' }])
  })

  it('path variables must be non-empty strings, named as the path template names them', async () => {
    const { remit, server } = await setup()
    expect((await refused(remit.beneficiaries.getByPosId(''))).issues).toEqual([
      { path: 'posid', message: 'must be a non-empty string (or a whole number)' },
    ])
    expect((await refused(remit.lookup.transactionStatus('  '))).issues[0]?.path).toBe('referenceNumber')
    // @ts-expect-error an object is not a reference
    expect((await refused(remit.lookup.transactionStatus({}))).issues[0]?.path).toBe('referenceNumber')
    expect((await refused(remit.transactions.confirm(''))).issues[0]?.path).toBe('transactionId')
    expect(server.requests).toHaveLength(0)
  })

  it('query values must be scalars', async () => {
    const { remit } = await setup()
    // @ts-expect-error nested objects are not query values
    const error = await refused(remit.lookup.banks({ filter: { a: 1 } }))
    expect(error.issues[0]?.path).toBe('filter')
  })

  it('validation failures reject the returned promise (they never throw synchronously)', async () => {
    const { remit } = await setup()
    // @ts-expect-error wrong type
    const call = () => remit.lookup.rates({ sendingAmountSLE: 'x' })
    let pending: ReturnType<typeof call> | undefined
    expect(() => {
      pending = call()
    }).not.toThrow()
    await expect(pending).rejects.toBeInstanceOf(RequestValidationError)
  })

  it('a valid transfer after a refused one goes through (no state kept from the refusal)', async () => {
    const { remit, server } = await setup()
    await refused(remit.transactions.mobileTransfer({ amountSLE: -1 }))
    await remit.transactions.mobileTransfer(mobileTransferBody(await createBeneficiary(remit)))
    expect(server.requests).toHaveLength(2)
  })
})

describe('client construction', () => {
  it('requires https (plain http only to loopback) and a non-empty key, never echoing the key', () => {
    expect(() => new Remittance({ baseUrl: 'http://remit.example.com', apiKey: 'k' })).toThrow(RequestValidationError)
    expect(() => new Remittance({ baseUrl: 'https://remit.example.com', apiKey: '' })).toThrow(
      /apiKey: is required: a non-empty string or a Secret/,
    )
    expect(() => new Remittance({ baseUrl: 'https://remit.example.com', apiKey: 'top\nsecret' })).toThrow(
      /^(?!.*top).*apiKey: must be visible ASCII characters only \(it is sent as a header/s,
    )
  })

  it('accepts a Secret and strips a trailing slash from the base URL', () => {
    const remit = new Remittance({ baseUrl: 'https://remit.example.com/v1/', apiKey: new Secret('k') })
    expect(remit.baseUrl).toBe('https://remit.example.com/v1')
  })
})
