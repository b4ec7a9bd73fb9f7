/**
 * `@paywire/otel`: OpenTelemetry spans and a duration histogram from paywire's diagnostics channels.
 * One span per operation (`s2s.sale`, not one anonymous POST per attempt), each HTTP attempt a child
 * span, a callback and a `reconcileAll()` run spans of their own. Every attribute comes from the
 * channels' allow-listed message fields, so no card number, CVV, expiry, password, key, signature
 * hash, 3-D Secure payload, token, body or header can reach a span or a metric.
 */

import * as diagnostics from 'node:diagnostics_channel'
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api'
import {
  type AttemptMessage,
  type CallbackMessage,
  type ClaimMessage,
  type IntentMessage,
  type OperationMessage,
  PAYWIRE_CHANNELS,
  type ReconcileMessage,
  type RetryMessage,
} from '@paywire/core'

/** The instrumentation scope name of the tracer and meter. */
export const INSTRUMENTATION_NAME = '@paywire/otel'

/** The histogram of operation durations, in seconds. */
export const OPERATION_DURATION_METRIC = 'paywire.client.operation.duration'

/**
 * The counter of callback deliveries the inbox refused (answered 400, 413 or 500: a body that does
 * not verify, one over the size cap, a route mounted after a body parser), by
 * `paywire.callback.answer` (the reason) and `http.response.status_code`. A 503 asks the gateway to
 * deliver again and is not counted. Alert on its rate: a burst of `hash_mismatch` is a password
 * rotation gone wrong or someone posting forged callbacks.
 */
export const CALLBACK_REFUSALS_METRIC = 'paywire.callback.refusals'

/** Options of `instrumentPaywire`. */
export interface PaywireInstrumentationOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider
  /** Where the duration histogram goes. Default: the global meter provider. */
  meterProvider?: MeterProvider
}

/** A running instrumentation: `disable()` unsubscribes from every channel (open spans are ended). */
export interface PaywireInstrumentation {
  disable(): void
}

type Handlers = {
  start?: (message: never) => void
  end?: (message: never) => void
  asyncStart?: (message: never) => void
  asyncEnd?: (message: never) => void
  error?: (message: never) => void
}

/**
 * Subscribes to paywire's diagnostics channels and turns what they publish into spans (one per
 * operation, its attempts as children, a callback and a reconciliation run) and the
 * `paywire.client.operation.duration` histogram (seconds). Attribute names follow the stable HTTP
 * semantic conventions (`http.request.method`, `server.address`, `server.port`,
 * `http.response.status_code`, `error.type`) plus `paywire.*`. A declined payment is a result, not
 * an error: its span status stays unset with `paywire.result=DECLINED`; only a call that failed
 * (rejected with an error) is marked ERROR, with the error's class as `error.type`.
 * Payer data (names, emails, phones, addresses, IPs) never reaches a span: the channels do not carry it.
 */
export function instrumentPaywire(options: PaywireInstrumentationOptions = {}): PaywireInstrumentation {
  checkOptions(options)
  const tracer: Tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME)
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME)
  const duration: Histogram = meter.createHistogram(OPERATION_DURATION_METRIC, {
    unit: 's',
    description: 'Duration of paywire operations, retries and backoff included.',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120] },
  })
  const refusals: Counter = meter.createCounter(CALLBACK_REFUSALS_METRIC, {
    unit: '{delivery}',
    description: 'Callback deliveries the inbox refused (400, 413, 500), by reason.',
  })
  // Spans by message object: an attempt finds its operation's span through `parent`, no async context needed.
  // Each message's span rides on the message itself, under a symbol of this instrumentation: no
  // lookup table per call, and a second instrumentation's spans never mix with these.
  const SPAN = Symbol('paywire span')
  type Carrier = { [SPAN]?: { span: Span; started: number } | undefined }
  const open = new Set<Span>()
  const begin = (message: object, span: Span) => {
    ;(message as Carrier)[SPAN] = { span, started: performance.now() }
    open.add(span)
  }
  const finish = (message: object): { span: Span; started: number } | undefined => {
    const entry = (message as Carrier)[SPAN]
    if (entry === undefined) return undefined
    ;(message as Carrier)[SPAN] = undefined
    open.delete(entry.span)
    return entry
  }
  const under = (parent: object | undefined): Context => {
    const entry = parent === undefined ? undefined : (parent as Carrier)[SPAN]
    return entry === undefined ? context.active() : trace.setSpan(context.active(), entry.span)
  }

  const operation: Handlers = {
    start(m: OperationMessage) {
      const attributes: Attributes = {
        'paywire.operation': m.operation,
        'paywire.service': m.service,
        'http.request.method': m.method,
        'server.address': m.serverAddress,
        'server.port': m.serverPort,
      }
      if (m.reconciliation !== undefined) {
        attributes['paywire.reconciliation.kind'] = m.reconciliation.kind
        attributes['paywire.reconciliation.value'] = m.reconciliation.value
      }
      begin(
        m,
        tracer.startSpan(`${m.service} ${m.operation}`, { kind: SpanKind.INTERNAL, attributes }, context.active()),
      )
    },
    asyncEnd(m: OperationMessage) {
      const entry = finish(m)
      if (entry === undefined) return
      const { span, started } = entry
      const ended: Attributes = {
        'paywire.retry_count': m.retryCount,
        'paywire.attempts': m.attempts,
        'paywire.outcome_unknown': m.outcomeUnknown,
      }
      if (m.status !== undefined) ended['http.response.status_code'] = m.status
      if (m.result !== undefined) ended['paywire.result'] = m.result
      if (m.errorCode !== undefined) ended['paywire.error.code'] = m.errorCode
      if (m.errorType !== undefined) {
        ended['error.type'] = m.errorType
        span.setStatus({ code: SpanStatusCode.ERROR, message: m.errorType })
      }
      span.setAttributes(ended)
      span.end()
      const point: Attributes = {
        'paywire.operation': m.operation,
        'paywire.service': m.service,
        'http.request.method': m.method,
        'server.address': m.serverAddress,
        'server.port': m.serverPort,
        'paywire.outcome_unknown': m.outcomeUnknown,
      }
      if (m.status !== undefined) point['http.response.status_code'] = m.status
      if (m.result !== undefined) point['paywire.result'] = m.result
      if (m.errorType !== undefined) point['error.type'] = m.errorType
      duration.record((performance.now() - started) / 1000, point)
    },
  }

  const attempt: Handlers = {
    start(m: AttemptMessage) {
      const attributes: Attributes = {
        'paywire.operation': m.operation,
        'paywire.service': m.service,
        'paywire.attempt': m.attempt,
        'http.request.method': m.method,
        'server.address': m.serverAddress,
        'server.port': m.serverPort,
      }
      if (m.attempt > 1) attributes['http.request.resend_count'] = m.attempt - 1
      begin(m, tracer.startSpan(`${m.method} ${m.operation}`, { kind: SpanKind.CLIENT, attributes }, under(m.parent)))
    },
    asyncEnd(m: AttemptMessage) {
      const span = finish(m)?.span
      if (span === undefined) return
      if (m.status !== undefined) span.setAttribute('http.response.status_code', m.status)
      if (m.outcomeUnknown) span.setAttribute('paywire.outcome_unknown', true)
      // HTTP client convention: a failed attempt or a 4xx/5xx answer is an error of that attempt.
      const errorType = m.errorType ?? (m.status !== undefined && m.status >= 400 ? String(m.status) : undefined)
      if (errorType !== undefined) {
        span.setAttribute('error.type', errorType)
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType })
      }
      span.end()
    },
  }

  const callback: Handlers = {
    start(m: CallbackMessage) {
      begin(
        m,
        tracer.startSpan(
          `${m.service} callback`,
          { kind: SpanKind.SERVER, attributes: { 'paywire.service': m.service } },
          context.active(),
        ),
      )
    },
    asyncEnd(m: CallbackMessage) {
      if (m.status === 400 || m.status === 413 || m.status === 500) {
        refusals.add(1, {
          'paywire.service': m.service,
          'http.response.status_code': m.status,
          ...(m.answer !== undefined ? { 'paywire.callback.answer': m.answer } : {}),
        })
      }
      const span = finish(m)?.span
      if (span === undefined) return
      const attributes: Attributes = {}
      if (m.status !== undefined) attributes['http.response.status_code'] = m.status
      if (m.answer !== undefined) attributes['paywire.callback.answer'] = m.answer
      if (m.eventType !== undefined) attributes['paywire.callback.event_type'] = m.eventType
      if (m.eventStatus !== undefined) attributes['paywire.callback.event_status'] = m.eventStatus
      if (m.claim !== undefined) attributes['paywire.callback.claim'] = m.claim
      span.setAttributes(attributes)
      if (m.errorType !== undefined) {
        span.setAttribute('error.type', m.errorType)
        span.setStatus({ code: SpanStatusCode.ERROR, message: m.errorType })
      }
      span.end()
    },
  }

  const reconcile: Handlers = {
    start(m: ReconcileMessage) {
      const attributes: Attributes = { 'paywire.service': m.service }
      if (m.operation !== undefined) attributes['paywire.operation'] = m.operation
      if (m.reconciliation !== undefined) {
        attributes['paywire.reconciliation.kind'] = m.reconciliation.kind
        attributes['paywire.reconciliation.value'] = m.reconciliation.value
      }
      const name = m.kind === 'all' ? `${m.service} reconcileAll` : `${m.service} reconcile ${m.operation}`
      begin(m, tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, under(m.parent)))
    },
    asyncEnd(m: ReconcileMessage) {
      const span = finish(m)?.span
      if (span === undefined) return
      if (m.intents !== undefined) span.setAttribute('paywire.reconcile.intents', m.intents)
      if (m.outcome !== undefined) span.setAttribute('paywire.reconcile.outcome', m.outcome)
      if (m.closed !== undefined) span.setAttribute('paywire.reconcile.closed', m.closed)
      if (m.errorType !== undefined) {
        span.setAttribute('error.type', m.errorType)
        span.setStatus({ code: SpanStatusCode.ERROR, message: m.errorType })
      }
      span.end()
    },
  }

  const retry = (message: unknown) => {
    const m = message as RetryMessage
    const span = m.parent === undefined ? undefined : (m.parent as Carrier)[SPAN]?.span
    span?.addEvent('paywire.retry', {
      'paywire.attempt': m.attempt,
      'paywire.retry.delay_ms': m.delayMs,
      'paywire.retry.reason': m.reason,
    })
  }
  // Journal and claim steps have no parent message: they become events of the active span, when a
  // context manager gives one (the operation or callback is then usually the merchant's own span).
  const intent = (message: unknown) => {
    const m = message as IntentMessage
    const attributes: Attributes = {
      'paywire.intent.action': m.action,
      'paywire.intent.ok': m.ok,
      'paywire.operation': m.operation,
    }
    if (m.outcome !== undefined) attributes['paywire.intent.outcome'] = m.outcome
    if (m.errorType !== undefined) attributes['error.type'] = m.errorType
    trace.getActiveSpan()?.addEvent('paywire.intent', attributes)
  }
  const claim = (message: unknown) => {
    const m = message as ClaimMessage
    const attributes: Attributes = { 'paywire.claim.action': m.action, 'paywire.claim.ok': m.ok }
    if (m.state !== undefined) attributes['paywire.claim.state'] = m.state
    if (m.errorType !== undefined) attributes['error.type'] = m.errorType
    trace.getActiveSpan()?.addEvent('paywire.claim', attributes)
  }

  const tracing: [string, Handlers][] = [
    [PAYWIRE_CHANNELS.operation, operation],
    [PAYWIRE_CHANNELS.attempt, attempt],
    [PAYWIRE_CHANNELS.callback, callback],
    [PAYWIRE_CHANNELS.reconcile, reconcile],
  ]
  const points: [string, (message: unknown) => void][] = [
    [PAYWIRE_CHANNELS.retry, retry],
    [PAYWIRE_CHANNELS.intent, intent],
    [PAYWIRE_CHANNELS.claim, claim],
  ]
  // Every handler guarded: node:diagnostics_channel rethrows a subscriber's error on the next tick as
  // an uncaught exception, so a throwing tracer, meter or an odd message would crash the process.
  for (const entry of tracing) entry[1] = guardAll(entry[1])
  for (const entry of points) entry[1] = guard(entry[1])
  for (const [name, handlers] of tracing) diagnostics.tracingChannel(name).subscribe(handlers as never)
  for (const [name, handler] of points) diagnostics.subscribe(name, handler)

  let enabled = true
  return {
    disable() {
      if (!enabled) return
      enabled = false
      for (const [name, handlers] of tracing) diagnostics.tracingChannel(name).unsubscribe(handlers as never)
      for (const [name, handler] of points) diagnostics.unsubscribe(name, handler)
      for (const span of open) guard(() => span.end())(undefined)
      open.clear()
    },
  }
}

/** `handler`, made unable to throw: telemetry never changes a payment's outcome nor stops the process. */
function guard<A>(handler: (message: A) => void): (message: A) => void {
  return (message) => {
    try {
      handler(message)
    } catch {
      // A tracer, meter or exporter that throws, or a message that is not paywire's: no span, no crash.
    }
  }
}

function guardAll(handlers: Handlers): Handlers {
  const guarded: Handlers = {}
  for (const key of Object.keys(handlers) as (keyof Handlers)[]) {
    const handler = handlers[key]
    if (handler !== undefined) guarded[key] = guard(handler as (message: unknown) => void)
  }
  return guarded
}

/** Bad options are refused up front, naming the option, rather than as a TypeError from inside OpenTelemetry. */
function checkOptions(options: unknown): asserts options is PaywireInstrumentationOptions {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(
      `instrumentPaywire(options): options must be an object ({ tracerProvider, meterProvider }) or left out, got ${typeof options === 'object' ? 'null' : typeof options}.`,
    )
  const { tracerProvider, meterProvider } = options as Record<string, unknown>
  if (tracerProvider !== undefined && typeof (tracerProvider as { getTracer?: unknown })?.getTracer !== 'function')
    throw new TypeError(
      'instrumentPaywire: the tracerProvider option must be an OpenTelemetry TracerProvider (an object with a getTracer() method), or left out for the global one.',
    )
  if (meterProvider !== undefined && typeof (meterProvider as { getMeter?: unknown })?.getMeter !== 'function')
    throw new TypeError(
      'instrumentPaywire: the meterProvider option must be an OpenTelemetry MeterProvider (an object with a getMeter() method), or left out for the global one.',
    )
}
