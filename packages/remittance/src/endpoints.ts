/**
 * Every remittance endpoint, by the client's group: one table of rows per group, each row one
 * endpoint and one method (`remit.<group>.<method>`). The client's reconcile key table is made from
 * it, and the endpoint checklist runs one example of each row.
 */

import { BENEFICIARIES } from './resources/beneficiaries.js'
import { LOOKUP } from './resources/lookup.js'
import { TRANSACTIONS } from './resources/transactions.js'

/** The rows of `remit.beneficiaries`, `remit.lookup` and `remit.transactions` (rules Endpoints 1–20). */
export const ENDPOINTS = {
  beneficiaries: BENEFICIARIES,
  lookup: LOOKUP,
  transactions: TRANSACTIONS,
} as const
