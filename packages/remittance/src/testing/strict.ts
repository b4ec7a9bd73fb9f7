/**
 * The remittance simulator's strict checks (on unless `lenient: true`) and its operation names,
 * both read from the SDK's own rows: a body is checked with the schema the client runs before
 * sending, and a fault names a request by the operation name the SDK's errors use.
 */

import { operationOfRequest, rowBodyIssues, rowsOf } from '@paywire/core/testing'
import { ENDPOINTS } from '../endpoints.js'
import { DEFAULT_SLE_DECIMALS, type RemittanceRules } from '../fields.js'
import {
  BANK_TYPES,
  BENEFICIARY_TYPES,
  CASH_TYPES,
  type Errors,
  type FieldType,
  MOBILE_TYPES,
  RATE_TYPES,
  typeErrors,
} from './rules.js'

const ROWS = rowsOf(ENDPOINTS)

/** What a default client checks against: the platform's SLE decimals. */
const RULES: RemittanceRules = { sleDecimals: DEFAULT_SLE_DECIMALS }

/** The JSON types the routes check themselves, by operation. */
const FIELD_TYPES: Readonly<Record<string, Record<string, FieldType>>> = {
  'beneficiaries.create': BENEFICIARY_TYPES,
  'beneficiaries.update': BENEFICIARY_TYPES,
  'lookup.rates': RATE_TYPES,
  'transactions.mobileTransfer': MOBILE_TYPES,
  'transactions.cashCollection': CASH_TYPES,
  'transactions.bankTransfer': BANK_TYPES,
}

/** The operation names a fault may name (`transactions.confirm`), as the SDK's errors write them. */
export const FAULT_OPERATIONS: readonly string[] = ROWS.map((row) => row.name)

/** The SDK operation of a request, or `undefined` for a path no row serves. */
export function remittanceOperationOf(method: string, pathname: string): string | undefined {
  return operationOfRequest(ROWS, method, pathname)
}

/**
 * What the SDK would refuse in `body` for `operation`, as the ASP.NET `errors` map the service
 * answers validation failures with (`{ "fees": ["must be >= 0"] }`); empty when it passes.
 */
export function strictErrors(operation: string | undefined, body: unknown): Errors {
  const row = ROWS.find((r) => r.name === operation)
  // A body that is not a JSON object, or a member of the wrong JSON type, is refused by the service's
  // deserializer first, in its own words: the routes answer those.
  if (!row || typeof body !== 'object' || body === null || Array.isArray(body)) return {}
  const types = FIELD_TYPES[row.name]
  if (types && Object.keys(typeErrors(body as Record<string, unknown>, types)).length > 0) return {}
  const errors: Errors = {}
  for (const issue of rowBodyIssues(row, RULES, body)) {
    const field = issue.path === '' ? '$' : issue.path
    errors[field] = [...(errors[field] ?? []), `${field} ${issue.message}`]
  }
  return errors
}
