/** The three clients behind one shape, so a test can be written once as data (package × operation). */

import { BillPayment, BillPaymentError } from '@paywire/bill-payment'
import { CardGateway, CardGatewayError, type CardGatewayOptions } from '@paywire/card-gateway'
import { type ApiError, type ClientOptions, PaywireError, type ServiceDedupOptions } from '@paywire/core'
import { Remittance, RemittanceError } from '@paywire/remittance'

/** The idempotency key core put on an error of a keyed call (`agentTransactionRef`, `Idempotency-Key`). */
export function idempotencyKeyOf(error: unknown): string | undefined {
  return error instanceof PaywireError ? error.idempotencyKey : undefined
}

/** Distinctive credentials, so a scan for them cannot match anything by accident. */
export const SECRETS = Object.freeze({
  cardPassword: 'Card-Pw-9f4Q-zX7!-never-on-the-wire',
  cardMerchantKey: 'rel-merchant-key',
  cardClientKey: 'rel-client-key',
  remittanceApiKey: 'Remit-Key-2b8R-qW5-header-only',
  billClientId: 'rel-bill-client-id',
  billClientSecret: 'Bill-Secret-7c1T-vN3-header-only',
})

export type PackageName = 'card-gateway' | 'remittance' | 'bill-payment'

/** One client reduced to what the matrix needs: a retry-safe lookup and a write that is not retry-safe. */
export interface OperationPair {
  readonly lookup: () => Promise<unknown>
  readonly write: () => Promise<unknown>
  readonly close: () => Promise<void>
}

export interface PackageUnderTest {
  readonly name: PackageName
  readonly lookupName: string
  readonly writeName: string
  /** The package's `ApiError` subclass. */
  readonly apiError: abstract new (
    ...args: never[]
  ) => ApiError
  /** `reason` of the package error for a 2xx body that cannot be read. */
  readonly unreadableReason: string
  /** The key a write error carries for reconciliation (remittance `agentTransactionRef`, bill `idempotencyKey`). */
  readonly writeKeyOf: ((error: unknown) => string | undefined) | undefined
  /** Where that key travels in a recorded request. */
  readonly wireKeyOf: ((request: { headers: Readonly<Record<string, string>>; body: string }) => string) | undefined
  readonly open: (url: string, options: ClientOptions) => OperationPair
}

export function cardGateway(url: string, options: ClientOptions & Partial<CardGatewayOptions> = {}): CardGateway {
  return new CardGateway({
    checkoutUrl: url,
    s2sUrl: url,
    merchantKey: SECRETS.cardMerchantKey,
    clientKey: SECRETS.cardClientKey,
    password: SECRETS.cardPassword,
    environment: 'sandbox',
    ...options,
  })
}

export function remittance(url: string, options: ClientOptions & ServiceDedupOptions = {}): Remittance {
  return new Remittance({ baseUrl: url, apiKey: SECRETS.remittanceApiKey, ...options })
}

export function billPayment(url: string, options: ClientOptions & ServiceDedupOptions = {}): BillPayment {
  return new BillPayment({
    baseUrl: url,
    clientId: SECRETS.billClientId,
    clientSecret: SECRETS.billClientSecret,
    ...options,
  })
}

export const MOBILE_TRANSFER = Object.freeze({
  remitterId: 'REM-1',
  beneficiaryId: 'BEN000001',
  destinationCountry: 'GH',
  amountSLE: 100,
  beneficiaryMobileTransferNumber: '233200000001',
  beneficiaryMobileTransferNetworkId: 'MTN-GH',
})

export const PACKAGES: readonly PackageUnderTest[] = [
  {
    name: 'card-gateway',
    lookupName: 's2s.getTransStatus',
    writeName: 's2s.capture',
    apiError: CardGatewayError,
    unreadableReason: 'unreadable_response',
    writeKeyOf: undefined,
    wireKeyOf: undefined,
    open(url, options) {
      const gw = cardGateway(url, options)
      return {
        lookup: () => gw.s2s.getTransStatus({ trans_id: 'trans-1' }),
        write: () => gw.s2s.capture({ trans_id: 'trans-1' }),
        close: () => gw.close(),
      }
    },
  },
  {
    name: 'remittance',
    lookupName: 'lookup.transactionStatus',
    writeName: 'transactions.mobileTransfer',
    apiError: RemittanceError,
    unreadableReason: 'unreadable_response',
    writeKeyOf: idempotencyKeyOf,
    wireKeyOf: (request) => String((JSON.parse(request.body) as Record<string, unknown>)['agentTransactionRef']),
    open(url, options) {
      const client = remittance(url, options)
      return {
        lookup: () => client.lookup.transactionStatus('RN-1'),
        write: () => client.transactions.mobileTransfer({ ...MOBILE_TRANSFER }),
        close: () => client.close(),
      }
    },
  },
  {
    name: 'bill-payment',
    lookupName: 'catalog.get',
    writeName: 'transactions.execute',
    apiError: BillPaymentError,
    unreadableReason: 'unreadable_response',
    writeKeyOf: idempotencyKeyOf,
    wireKeyOf: (request) => request.headers['idempotency-key'] ?? '',
    open(url, options) {
      const client = billPayment(url, options)
      return {
        lookup: () => client.catalog.get('EDSA-PREPAID'),
        write: () => client.transactions.execute({ productId: 'EDSA-PREPAID', amount: 50 }),
        close: () => client.close(),
      }
    },
  },
]

/** Awaits `promise` and returns what it rejected with, or `undefined` when it resolved. */
export async function outcome(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await promise }
  } catch (error) {
    return { error }
  }
}
