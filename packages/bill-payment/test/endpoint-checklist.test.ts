/** The endpoint checklist of this package: every row of `ENDPOINTS`, checked from the table (tests/support). */

import { describeEndpointChecklist } from '../../../tests/support/endpoint-checklist.js'
import { BILL_KIT } from './endpoint-kit.js'

describeEndpointChecklist(BILL_KIT)
