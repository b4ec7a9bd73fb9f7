/** Every endpoint of the card gateway client, by the client property that holds its methods. */

import { CHECKOUT } from './checkout.js'
import { S2S } from './s2s.js'

/** `gw.<group>.<method>` is the row `ENDPOINTS[group][method]`: the client and its tests read this table. */
export const ENDPOINTS = { checkout: CHECKOUT, s2s: S2S } as const
