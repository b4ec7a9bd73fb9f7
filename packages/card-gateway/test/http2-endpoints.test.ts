/** Every endpoint of this package over HTTP/2 against its simulator (tests/support/describe-http2-endpoints.ts). */

import { fileURLToPath } from 'node:url'
import { describeEndpointsOverHttp2 } from '../../../tests/support/describe-http2-endpoints.js'

describeEndpointsOverHttp2(fileURLToPath(new URL('..', import.meta.url)))
