/** A stateful remittance service for tests: msw handlers over beneficiaries, fixtures, rates and transfers. */

import type { FailNextOptions } from '@paywire/core/testing'
import type { RequestHandler } from 'msw'
import { SimulatorAnswers } from './answers.js'
import { beneficiaryRoutes } from './beneficiaries.js'
import { type RemittanceFixtures, remittanceFixtures } from './fixtures.js'
import { lookupRoutes } from './lookup.js'
import { SimulatorRouting } from './routing.js'
import {
  type RemittanceLedgerEntry,
  type RemittanceSimulatorOptions,
  SIMULATOR_CREDENTIALS,
  type SimulatedBeneficiary,
} from './rules.js'
import { SimulatorState } from './state.js'
import { transactionRoutes } from './transactions.js'

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
 * - strict by default: a body the SDK's own schema for the operation refuses (an unknown member, a
 *   negative or over-precise amount, a wrong JSON type) is refused with 400 and an `errors` map
 *   (`lenient: true` turns this off);
 * - `failNext` injects upstream failures (502 by default) before anything else happens, or after
 *   the request was acted on (`when: 'after'`).
 */
export class RemittanceSimulator {
  readonly apiKey: string
  readonly fixtures: RemittanceFixtures
  /** msw handlers; serve them with `startMockServer` (or use `startRemittanceSimulator`). */
  readonly handlers: RequestHandler[]
  readonly #state = new SimulatorState()
  readonly #routing: SimulatorRouting

  constructor(options: RemittanceSimulatorOptions = {}) {
    this.apiKey = options.apiKey ?? SIMULATOR_CREDENTIALS.apiKey
    this.fixtures = { ...remittanceFixtures, ...options.fixtures }
    const answers = new SimulatorAnswers()
    this.#routing = new SimulatorRouting(this.apiKey, answers, options.lenient ?? false)
    const parts = {
      fixtures: this.fixtures,
      createdBody: options.createdBody ?? 'record',
      state: this.#state,
      answers,
      route: this.#routing.route,
    } as const
    this.handlers = [...beneficiaryRoutes(parts), ...lookupRoutes(parts), ...transactionRoutes(parts)]
  }

  /** Beneficiaries stored so far (copies). */
  get beneficiaries(): readonly SimulatedBeneficiary[] {
    return this.#state.beneficiaries.map((b) => ({ ...b }))
  }

  /** Every executed transfer, in order (copies). */
  get ledger(): readonly RemittanceLedgerEntry[] {
    return this.#state.ledger.map((entry) => ({ ...entry }))
  }

  /**
   * The next `count` requests to `path` or below it (e.g. `/api/transactions/confirm`; default any)
   * fail with `status` (default 502, an upstream failure) and a ProblemDetails, or `body`, before auth
   * or any state change; with `{ when: 'after' }` the request is acted on first and its answer lost.
   * `operation` (`'transactions.confirm'`, the name the SDK's errors use) narrows it to those
   * requests; an unknown one throws a `RangeError` naming the known ones.
   */
  failNext(options: FailNextOptions = {}): void {
    this.#routing.failNext(options)
  }

  /** Moves a transaction (by transaction id, reference number or agentTransactionRef) to `status`. */
  setStatus(id: string, status: string): void {
    const entry = this.#state.findTransaction(id)
    if (!entry) throw new Error(`no simulated transaction ${id}`)
    entry.status = status
  }

  /** Forgets beneficiaries, transfers and pending failures. */
  reset(): void {
    this.#state.reset()
    this.#routing.clear()
  }
}
