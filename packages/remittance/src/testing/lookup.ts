/**
 * The simulated lookups (rules Endpoints 6–16): name enquiry, rates, reference data, transaction
 * status, and one example call of each (the endpoint checklist's).
 */

import type { EndpointExamples } from '@paywire/core/engine'
import { HttpResponse, type RequestHandler } from 'msw'
import type { LOOKUP } from '../resources/lookup.js'
import type { ExampleSetup, SimulatorParts } from './routing.js'
import {
  destinationCurrency,
  type Errors,
  filterByQuery,
  nonNegative,
  RATE_TYPES,
  round2,
  simulatorFees,
  sleErrors,
  statusView,
  typeErrors,
} from './rules.js'
import { transactionId } from './transactions.js'

/** The lookups: reference data from the fixtures (filtered by the query), rates, accounts, status. */
export function lookupRoutes({ fixtures: f, state, answers, route }: SimulatorParts): RequestHandler[] {
  const list = (items: readonly object[]) => (_request: Request, _params: Record<string, string>, url: URL) =>
    HttpResponse.json(filterByQuery(items, url.searchParams))

  const nameEnquiry = (bankCode: unknown, accountNumber: unknown): Response => {
    const errors: Errors = {}
    if (typeof bankCode !== 'string' || bankCode === '') errors.bankCode = ['The bankCode field is required.']
    if (typeof accountNumber !== 'string' || accountNumber === '') {
      errors.accountNumber = ['The accountNumber field is required.']
    }
    if (Object.keys(errors).length > 0) return answers.validation(errors)
    const account = f.accounts.find((a) => a.bankCode === bankCode && a.accountNumber === accountNumber)
    if (!account) return answers.problem(404, 'Not Found', 'No account with this number at this bank.')
    return HttpResponse.json(account)
  }

  const rates = async (request: Request): Promise<Response> => {
    const body = await answers.body(request)
    if (body instanceof Response) return body
    const errors = typeErrors(body, RATE_TYPES)
    if (Object.keys(errors).length > 0) return answers.validation(errors)
    const amountType = body.amountType ?? (body.receivingAmountFX !== undefined ? 'DESTINATION' : 'SOURCE')
    if (amountType !== 'SOURCE' && amountType !== 'DESTINATION') {
      return answers.validation({ amountType: ['The amountType must be SOURCE or DESTINATION.'] })
    }
    if (body.sourceCurrency !== undefined && body.sourceCurrency !== 'SLE') {
      return answers.validation({ sourceCurrency: ['Only SLE can be sent.'] })
    }
    const currency = destinationCurrency(f, body.destCurrency, body.destinationCountry)
    if (typeof currency !== 'string') return answers.validation(currency)
    const rate = f.rates[currency] as number
    let sending: number
    let receiving: number
    if (amountType === 'SOURCE') {
      if (typeof body.sendingAmountSLE !== 'number') {
        return answers.validation({
          sendingAmountSLE: ['The sendingAmountSLE field is required when amountType is SOURCE.'],
        })
      }
      sending = body.sendingAmountSLE
      receiving = round2(sending * rate)
    } else {
      if (typeof body.receivingAmountFX !== 'number') {
        return answers.validation({
          receivingAmountFX: ['The receivingAmountFX field is required when amountType is DESTINATION.'],
        })
      }
      receiving = body.receivingAmountFX
      sending = Math.ceil((receiving / rate) * 100 - 1e-9) / 100
    }
    const moneyErrors = { ...sleErrors('sendingAmountSLE', sending), ...nonNegative('receivingAmountFX', receiving) }
    if (Object.keys(moneyErrors).length > 0) return answers.validation(moneyErrors)
    const fees = simulatorFees(f, sending)
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

  return [
    route('post', '/api/lookup/name-enquiry', async (request) => {
      const body = await answers.body(request)
      if (body instanceof Response) return body
      return nameEnquiry(body.bankCode, body.accountNumber)
    }),
    route('get', '/api/lookup/name-enquiry', (_r, _p, url) =>
      nameEnquiry(url.searchParams.get('bankCode') ?? undefined, url.searchParams.get('accountNumber') ?? undefined),
    ),
    route('post', '/api/lookup/rates', rates),
    route('get', '/api/lookup/destination-countries', list(f.destinationCountries)),
    route('get', '/api/lookup/delivery-bank-branches', list(f.deliveryBankBranches)),
    route('get', '/api/lookup/delivery-banks', list(f.deliveryBanks)),
    route('get', '/api/lookup/collection-points', list(f.collectionPoints)),
    route('get', '/api/lookup/mobile-operator-credit-types', list(f.mobileOperatorCreditTypes)),
    route('get', '/api/lookup/mobile-operators', list(f.mobileOperators)),
    route('get', '/api/lookup/banks', list(f.banks)),
    // Found by referenceNumber or agentTransactionRef, not by transactionId (rule Platform 2).
    route('get', '/api/lookup/transaction/status/:referenceNumber', (_r, params) => {
      const entry = state.findTransaction(params.referenceNumber ?? '')
      if (!entry || entry.transactionId === params.referenceNumber) {
        return answers.problem(404, 'Not Found', `No transaction with reference ${params.referenceNumber}.`)
      }
      return HttpResponse.json(statusView(entry))
    }),
  ]
}

/** The account the name enquiries ask about. */
const ACCOUNT = { bankCode: 'RCB', accountNumber: '0012345678' }

/**
 * One example per row of `LOOKUP` (the endpoint checklist's): each the argument list of its
 * method, answered with success.
 */
export const LOOKUP_EXAMPLES: EndpointExamples<typeof LOOKUP, ExampleSetup> = {
  rates: () => [{ sendingAmountSLE: 100, destCurrency: 'GHS' }],
  nameEnquiry: () => [ACCOUNT],
  nameEnquiryLookup: () => [ACCOUNT],
  destinationCountries: () => [],
  deliveryBankBranches: () => [{ bankId: 'GH-GCB' }],
  deliveryBanks: () => [{ countryCode: 'GH' }],
  collectionPoints: () => [],
  mobileOperatorCreditTypes: () => [],
  mobileOperators: () => [],
  banks: () => [],
  transactionStatus: async ({ client }) => {
    const confirmed = await client.transactions.confirm(await transactionId(client))
    if (confirmed?.referenceNumber == null) throw new Error('the simulator confirmed without a referenceNumber')
    return [confirmed.referenceNumber]
  },
}
