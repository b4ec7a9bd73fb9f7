/** `@paywire/remittance/testing`: a stateful simulator of the remittance service, as msw handlers. */

export type { FailNextOptions } from '@paywire/core/testing'
export type {
  AccountFixture,
  BankFixture,
  CollectionPointFixture,
  CountryFixture,
  DeliveryBankBranchFixture,
  DeliveryBankFixture,
  MobileOperatorCreditTypeFixture,
  MobileOperatorFixture,
  RemittanceFixtures,
} from './fixtures.js'
export { remittanceFixtures } from './fixtures.js'
export type {
  LedgerEntry,
  RemittanceSimulatorOptions,
  SimulatedBeneficiary,
  StartedRemittanceSimulator,
  TransferKind,
} from './simulator.js'
export { RemittanceSimulator, SIMULATOR_API_KEY, startRemittanceSimulator } from './simulator.js'
