/** Every endpoint of the bill payment client, by the client property that holds its methods. */

import { CATALOG } from './resources/catalog.js'
import { TRANSACTIONS } from './resources/transactions.js'

/** `bills.<group>.<method>` is the row `ENDPOINTS[group][method]`: the client and its tests read this table. */
export const ENDPOINTS = { catalog: CATALOG, transactions: TRANSACTIONS } as const
