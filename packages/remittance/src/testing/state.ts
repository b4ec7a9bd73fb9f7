/** The simulator's state: the beneficiaries and transfers it holds, and the ids it hands out. */

import type { MutableEntry, SimulatedBeneficiary } from './rules.js'

/** What the simulated service remembers between requests; `reset()` forgets it. */
export class SimulatorState {
  beneficiaries: SimulatedBeneficiary[] = []
  ledger: MutableEntry[] = []
  #sequence = 0

  /** The next id of a kind: `BEN000001`, `TX000002`, `RN000003` (one sequence for all). */
  next(prefix: string): string {
    this.#sequence += 1
    return `${prefix}${String(this.#sequence).padStart(6, '0')}`
  }

  /** A transfer by its transaction id, reference number or agentTransactionRef. */
  findTransaction(id: string): MutableEntry | undefined {
    return this.ledger.find(
      (entry) => entry.transactionId === id || entry.referenceNumber === id || entry.agentTransactionRef === id,
    )
  }

  reset(): void {
    this.beneficiaries = []
    this.ledger = []
    this.#sequence = 0
  }
}
