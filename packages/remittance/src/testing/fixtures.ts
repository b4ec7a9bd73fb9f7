/** Reference data the simulator serves: countries, banks, branches, collection points, operators, rates. */

/** A destination country; `serviceTypes` uses the upstream transaction types (rule Platform 1). */
export interface CountryFixture {
  readonly countryCode: string
  readonly countryName: string
  readonly currency: string
  readonly serviceTypes: readonly string[]
}

export interface DeliveryBankFixture {
  readonly bankId: string
  readonly bankName: string
  readonly countryCode: string
}

export interface DeliveryBankBranchFixture {
  readonly branchId: string
  readonly bankId: string
  readonly branchName: string
  readonly city: string
}

export interface CollectionPointFixture {
  readonly collectionPointId: string
  readonly name: string
  readonly city: string
  readonly countryCode: string
}

export interface MobileOperatorFixture {
  readonly networkId: string
  readonly name: string
  readonly countryCode: string
}

export interface MobileOperatorCreditTypeFixture {
  readonly creditTypeId: string
  readonly networkId: string
  readonly name: string
}

/** A local (Sierra Leone) bank, as `GET /api/lookup/banks` lists them. */
export interface BankFixture {
  readonly bankCode: string
  readonly bankName: string
}

/** An account the name enquiry knows. */
export interface AccountFixture {
  readonly bankCode: string
  readonly accountNumber: string
  readonly accountName: string
}

export interface RemittanceFixtures {
  readonly destinationCountries: readonly CountryFixture[]
  readonly deliveryBanks: readonly DeliveryBankFixture[]
  readonly deliveryBankBranches: readonly DeliveryBankBranchFixture[]
  readonly collectionPoints: readonly CollectionPointFixture[]
  readonly mobileOperators: readonly MobileOperatorFixture[]
  readonly mobileOperatorCreditTypes: readonly MobileOperatorCreditTypeFixture[]
  readonly banks: readonly BankFixture[]
  readonly accounts: readonly AccountFixture[]
  /** Units of the destination currency per 1 SLE. */
  readonly rates: Readonly<Record<string, number>>
  /** Fee: `percent` of the SLE amount, at least `minimumSLE`, rounded to 2 decimals. */
  readonly fees: { readonly percent: number; readonly minimumSLE: number }
}

const ALL_SERVICES = ['Account', 'Cash Collection', 'Mobile Transfer'] as const

/** The default fixtures (invented, stable: tests may rely on them). */
export const remittanceFixtures: RemittanceFixtures = {
  destinationCountries: [
    { countryCode: 'GH', countryName: 'Ghana', currency: 'GHS', serviceTypes: ALL_SERVICES },
    { countryCode: 'NG', countryName: 'Nigeria', currency: 'NGN', serviceTypes: ALL_SERVICES },
    { countryCode: 'GM', countryName: 'Gambia', currency: 'GMD', serviceTypes: ['Cash Collection', 'Mobile Transfer'] },
    { countryCode: 'GN', countryName: 'Guinea', currency: 'GNF', serviceTypes: ['Cash Collection', 'Mobile Transfer'] },
    {
      countryCode: 'LR',
      countryName: 'Liberia',
      currency: 'USD',
      serviceTypes: ['Cash Collection', 'Mobile Transfer'],
    },
  ],
  deliveryBanks: [
    { bankId: 'GH-GCB', bankName: 'GCB Bank', countryCode: 'GH' },
    { bankId: 'GH-ECO', bankName: 'Ecobank Ghana', countryCode: 'GH' },
    { bankId: 'NG-GTB', bankName: 'Guaranty Trust Bank', countryCode: 'NG' },
    { bankId: 'NG-ZEN', bankName: 'Zenith Bank', countryCode: 'NG' },
  ],
  deliveryBankBranches: [
    { branchId: 'GH-GCB-ACC', bankId: 'GH-GCB', branchName: 'Accra High Street', city: 'Accra' },
    { branchId: 'GH-GCB-KSI', bankId: 'GH-GCB', branchName: 'Kumasi Adum', city: 'Kumasi' },
    { branchId: 'GH-ECO-ACC', bankId: 'GH-ECO', branchName: 'Ridge', city: 'Accra' },
    { branchId: 'NG-GTB-LOS', bankId: 'NG-GTB', branchName: 'Victoria Island', city: 'Lagos' },
    { branchId: 'NG-ZEN-ABJ', bankId: 'NG-ZEN', branchName: 'Central Business District', city: 'Abuja' },
  ],
  collectionPoints: [
    { collectionPointId: 'CP-GH-001', name: 'Makola Market Agent', city: 'Accra', countryCode: 'GH' },
    { collectionPointId: 'CP-NG-001', name: 'Balogun Agent', city: 'Lagos', countryCode: 'NG' },
    { collectionPointId: 'CP-GM-001', name: 'Serrekunda Agent', city: 'Serrekunda', countryCode: 'GM' },
    { collectionPointId: 'CP-GN-001', name: 'Madina Agent', city: 'Conakry', countryCode: 'GN' },
    { collectionPointId: 'CP-LR-001', name: 'Waterside Agent', city: 'Monrovia', countryCode: 'LR' },
  ],
  mobileOperators: [
    { networkId: 'MTN-GH', name: 'MTN Mobile Money', countryCode: 'GH' },
    { networkId: 'TELECEL-GH', name: 'Telecel Cash', countryCode: 'GH' },
    { networkId: 'OPAY-NG', name: 'OPay', countryCode: 'NG' },
    { networkId: 'AFRICELL-GM', name: 'Afrimoney', countryCode: 'GM' },
    { networkId: 'ORANGE-GN', name: 'Orange Money', countryCode: 'GN' },
    { networkId: 'MTN-LR', name: 'Lonestar MoMo', countryCode: 'LR' },
  ],
  mobileOperatorCreditTypes: [
    { creditTypeId: 'MTN-GH-WALLET', networkId: 'MTN-GH', name: 'Wallet' },
    { creditTypeId: 'MTN-GH-AIRTIME', networkId: 'MTN-GH', name: 'Airtime' },
    { creditTypeId: 'TELECEL-GH-WALLET', networkId: 'TELECEL-GH', name: 'Wallet' },
    { creditTypeId: 'OPAY-NG-WALLET', networkId: 'OPAY-NG', name: 'Wallet' },
    { creditTypeId: 'AFRICELL-GM-WALLET', networkId: 'AFRICELL-GM', name: 'Wallet' },
    { creditTypeId: 'ORANGE-GN-WALLET', networkId: 'ORANGE-GN', name: 'Wallet' },
    { creditTypeId: 'MTN-LR-WALLET', networkId: 'MTN-LR', name: 'Wallet' },
  ],
  banks: [
    { bankCode: 'RCB', bankName: 'Rokel Commercial Bank' },
    { bankCode: 'SLCB', bankName: 'Sierra Leone Commercial Bank' },
    { bankCode: 'UBA', bankName: 'United Bank for Africa (SL)' },
    { bankCode: 'ECO', bankName: 'Ecobank Sierra Leone' },
  ],
  accounts: [
    { bankCode: 'RCB', accountNumber: '0012345678', accountName: 'Aminata Kamara' },
    { bankCode: 'SLCB', accountNumber: '0087654321', accountName: 'Mohamed Sesay' },
    { bankCode: 'GH-GCB', accountNumber: '1020304050', accountName: 'Kwame Mensah' },
  ],
  rates: { GHS: 0.65, NGN: 70.25, GMD: 3.05, GNF: 380.5, USD: 0.044 },
  fees: { percent: 1.5, minimumSLE: 5 },
}
