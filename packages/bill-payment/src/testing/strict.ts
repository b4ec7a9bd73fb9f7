/**
 * The bill payment simulator's operation names and strict checks, read from the SDK's own rows: a
 * fault names a request as the SDK's errors do, and a body is checked with the client's own rules
 * (the service publishes no field rules, so those are the JSON-object checks the SDK makes).
 */

import { operationOfRequest, rowBodyIssues, rowsOf } from '@paywire/core/testing'
import { ENDPOINTS } from '../endpoints.js'

const ROWS = rowsOf(ENDPOINTS)

/** The operation names a fault may name (`transactions.execute`), as the SDK's errors write them. */
export const FAULT_OPERATIONS: readonly string[] = ROWS.map((row) => row.name)

/** The SDK operation of a request, or `undefined` for a path no row serves. */
export function billOperationOf(method: string, pathname: string): string | undefined {
  return operationOfRequest(ROWS, method, pathname)
}

/** What the SDK would refuse in `body` for `operation`, as a validation `errors` map; empty when it passes. */
export function strictErrors(operation: string | undefined, body: unknown): Record<string, string[]> {
  const row = ROWS.find((r) => r.name === operation)
  if (!row) return {}
  const errors: Record<string, string[]> = {}
  for (const issue of rowBodyIssues(row, undefined, body)) {
    const field = issue.path === '' ? '$' : issue.path
    errors[field] = [...(errors[field] ?? []), `${field} ${issue.message}`]
  }
  return errors
}
