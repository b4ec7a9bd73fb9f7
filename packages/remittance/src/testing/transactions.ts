/**
 * The simulated transfers and confirm (rules Endpoints 17–20), and one example call of each (the
 * endpoint checklist's).
 */

import type { EndpointExamples } from '@paywire/core/engine'
import { HttpResponse, type RequestHandler } from 'msw'
import type { Remittance } from '../client.js'
import type { TRANSACTIONS } from '../resources/transactions.js'
import { beneficiaryId } from './beneficiaries.js'
import type { ExampleSetup, SimulatorParts } from './routing.js'
import {
  BANK_TYPES,
  CASH_TYPES,
  destinationCurrency,
  type Errors,
  MOBILE_TYPES,
  type MutableEntry,
  referenceErrors,
  required,
  round2,
  simulatorFees,
  sleErrors,
  type TransferKind,
  typeErrors,
} from './rules.js'

const TYPES = { 'mobile-transfer': MOBILE_TYPES, 'cash-collection': CASH_TYPES, 'bank-transfer': BANK_TYPES }

/** The fields a transfer of each kind needs besides the common ones (simulator guesses). */
const EXTRA_REQUIRED = {
  'mobile-transfer': ['beneficiaryMobileTransferNumber', 'beneficiaryMobileTransferNetworkId'],
  'cash-collection': ['collectionPointId'],
  'bank-transfer': ['bankId', 'accountNumber'],
}

const TRANS_TYPE = {
  'mobile-transfer': 'Mobile Transfer',
  'cash-collection': 'Cash Collection',
  'bank-transfer': 'Account',
}

/**
 * A transfer needs `remitterId`, a known `beneficiaryId`, `destinationCountry`, `amountSLE` > 0 and
 * an unused `agentTransactionRef` (a reused one is refused with 400 naming the original
 * `transactionId`, rule Platform 5); it answers its `transactionId`, and confirm the `referenceNumber`.
 */
export function transactionRoutes({ fixtures: f, state, answers, route }: SimulatorParts): RequestHandler[] {
  const transfer = async (request: Request, kind: TransferKind): Promise<Response> => {
    const body = await answers.body(request)
    if (body instanceof Response) return body
    const errors: Errors = {
      ...typeErrors(body, TYPES[kind]),
      ...required(body, [
        'remitterId',
        'beneficiaryId',
        'destinationCountry',
        'amountSLE',
        'agentTransactionRef',
        ...EXTRA_REQUIRED[kind],
      ]),
    }
    if (Object.keys(errors).length > 0) return answers.validation(errors)
    const amountSle = body.amountSLE as number
    const moneyErrors = sleErrors('amountSLE', amountSle)
    if (amountSle === 0) moneyErrors.amountSLE = ['The amountSLE must be greater than 0.']
    if (Object.keys(moneyErrors).length > 0) return answers.validation(moneyErrors)
    if (!state.beneficiaries.some((b) => b.beneficiaryId === body.beneficiaryId)) {
      return answers.validation({ beneficiaryId: [`Unknown beneficiary ${String(body.beneficiaryId)}.`] })
    }
    const currency = destinationCurrency(f, body.destinationCurrency, body.destinationCountry)
    if (typeof currency !== 'string') return answers.validation(currency)
    const unknownReferences = referenceErrors(f, kind, body)
    if (Object.keys(unknownReferences).length > 0) return answers.validation(unknownReferences)
    const agentTransactionRef = body.agentTransactionRef as string
    const earlier = state.ledger.find((entry) => entry.agentTransactionRef === agentTransactionRef)
    if (earlier) {
      return answers.problem(
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
      transactionId: state.next('TX'),
      kind,
      agentTransactionRef,
      beneficiaryId: body.beneficiaryId as string,
      amountSLE: amountSle,
      fees: simulatorFees(f, amountSle),
      destCurrency: currency,
      receivingAmountFX: round2(amountSle * (f.rates[currency] as number)),
      status: 'ENTERED',
      referenceNumber: undefined,
      body: structuredClone(body),
    }
    state.ledger.push(entry)
    return HttpResponse.json(
      {
        transactionId: entry.transactionId,
        agentTransactionRef,
        status: entry.status,
        transType: TRANS_TYPE[kind],
        amountSLE: entry.amountSLE,
        fees: entry.fees,
        destCurrency: entry.destCurrency,
        receivingAmountFX: entry.receivingAmountFX,
      },
      { status: 201 },
    )
  }

  const confirm = (transactionId: string | undefined): Response => {
    const entry = state.ledger.find((e) => e.transactionId === transactionId)
    if (!entry) return answers.problem(404, 'Not Found', `No transaction ${transactionId}.`)
    if (entry.referenceNumber !== undefined) {
      return answers.problem(
        400,
        'Transaction already confirmed',
        `Transaction ${transactionId} is already confirmed.`,
        {
          referenceNumber: entry.referenceNumber,
        },
      )
    }
    entry.referenceNumber = state.next('RN')
    entry.status = 'AGENT_OK'
    return HttpResponse.json({
      transactionId: entry.transactionId,
      referenceNumber: entry.referenceNumber,
      status: entry.status,
    })
  }

  return [
    route('post', '/api/transactions/mobile-transfer', (request) => transfer(request, 'mobile-transfer')),
    route('post', '/api/transactions/cash-collection', (request) => transfer(request, 'cash-collection')),
    route('post', '/api/transactions/bank-transfer', (request) => transfer(request, 'bank-transfer')),
    route('post', '/api/transactions/confirm/:transactionId', (_r, params) => confirm(params.transactionId)),
  ]
}

/** The fields every transfer to Ghana shares; `agentTransactionRef` is left to the client to generate. */
function transfer(beneficiaryId: string) {
  return {
    remitterId: 'REM-1',
    beneficiaryId,
    destinationCountry: 'GH',
    purpose: 'Family support',
    sourceOfIncome: 'Salary',
    sourceCurrency: 'SLE',
    destinationCurrency: 'GHS',
    amountType: 'SOURCE',
    amountSLE: 1000,
  }
}

function mobileTransfer(beneficiaryId: string) {
  return {
    ...transfer(beneficiaryId),
    transType: 'Mobile Transfer',
    beneficiaryMobileTransferNumber: '+233245550101',
    beneficiaryMobileTransferNetworkId: 'MTN-GH',
    beneficiaryMobileTransferNetworkCreditTypeId: 'MTN-GH-WALLET',
  }
}

/** The id of a transfer made on the simulator, not yet confirmed. */
export async function transactionId(client: Remittance): Promise<string> {
  const made = await client.transactions.mobileTransfer(mobileTransfer(await beneficiaryId(client)))
  if (made?.transactionId == null) throw new Error('the simulator answered the transfer without a transactionId')
  return String(made.transactionId)
}

/**
 * One example per row of `TRANSACTIONS` (the endpoint checklist's): each the argument list of its
 * method, answered with success.
 */
export const TRANSACTION_EXAMPLES: EndpointExamples<typeof TRANSACTIONS, ExampleSetup> = {
  mobileTransfer: async ({ client }) => [mobileTransfer(await beneficiaryId(client))],
  cashCollection: async ({ client }) => [
    {
      ...transfer(await beneficiaryId(client)),
      transType: 'Cash Collection',
      collectionPointId: 'CP-GH-001',
      collectionPin: '4321',
    },
  ],
  bankTransfer: async ({ client }) => [
    { ...transfer(await beneficiaryId(client)), transType: 'Account', bankId: 'GH-GCB', accountNumber: '1020304050' },
  ],
  confirm: async ({ client }) => [await transactionId(client)],
}
