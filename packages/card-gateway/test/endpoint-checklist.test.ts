/** The endpoint checklist of this package: every row of `ENDPOINTS`, checked from the table (tests/support). */

import { describeEndpointChecklist } from '../../../tests/support/endpoint-checklist.js'
import { CARD_KIT } from './endpoint-kit.js'

describeEndpointChecklist(CARD_KIT)
