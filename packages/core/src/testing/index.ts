/** `@paywire/core/testing`: loopback servers (msw handlers, deliberate faults), a test clock and `rejection()`. */

export type { DoubleAnswerRequest, DoubleAnswerServer, DoubleAnswerServerOptions } from './double-answer-server.js'
export { rawHttpAnswer, startDoubleAnswerServer } from './double-answer-server.js'

export type { FaultBehaviour, FaultServer } from './fault-server.js'
export { faults, refusedUrl, startFaultServer } from './fault-server.js'
export type { AnyOperation, FailNextOptions, FaultTarget, FaultVocabulary, InjectedFault } from './faults.js'
export { FaultQueue, faultAnswer, HTML_ERROR_PAGE, operationOfRequest, rowsOf } from './faults.js'
export type { MockServer, MockServerOptions, RecordedRequest } from './mock-server.js'
export { fetchRequestOf, REMOTE_ADDRESS_HEADER, sendFetchResponse, startMockServer } from './mock-server.js'
export { rejection } from './rejection.js'
export { rowBodyIssues } from './strict-rows.js'
export type { TestClock } from './test-clock.js'
export { createTestClock } from './test-clock.js'
