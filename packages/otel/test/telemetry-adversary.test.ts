/**
 * `@paywire/otel` from the attacker's side: a tracer or meter provider that throws, odd messages on
 * the channels, bad options, calls aborted or refused, `disable()` in the middle of a call. Its
 * handlers run inside `node:diagnostics_channel`, which rethrows a subscriber's error on the next
 * tick as an uncaught exception: a handler that throws would crash the merchant's process.
 */

import * as diagnostics from 'node:diagnostics_channel'
import type { Span, Tracer, TracerProvider } from '@opentelemetry/api'
import { CardGateway } from '@paywire/card-gateway'
import { SIMULATOR_CREDENTIALS } from '@paywire/card-gateway/testing'
import { PAYWIRE_CHANNELS } from '@paywire/core'
import { type FaultBehaviour, faults, rejection, startFaultServer } from '@paywire/core/testing'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { instrumentPaywire } from '../src/index.js'

const TRANS_ID = 'a1b2c3d4-0000-4000-8000-000000000001'
const STATUS = { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', order_id: 'o-1', trans_id: TRANS_ID }

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Uncaught exceptions raised while the test runs, instead of the runner's own handler. */
function catchUncaught(): unknown[] {
  const caught: unknown[] = []
  const saved = process.listeners('uncaughtException')
  process.removeAllListeners('uncaughtException')
  const collect = (error: unknown) => caught.push(error)
  process.on('uncaughtException', collect)
  cleanups.push(() => {
    process.off('uncaughtException', collect)
    for (const listener of saved) process.on('uncaughtException', listener)
  })
  return caught
}

/** One macrotask: lets `process.nextTick` rethrows run. */
const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve))

async function gateway(behaviour: FaultBehaviour) {
  const server = await startFaultServer(behaviour)
  const gw = new CardGateway({ checkoutUrl: server.url, s2sUrl: server.url, ...SIMULATOR_CREDENTIALS })
  onTestFinished(async () => {
    await gw.close()
    await server.close()
  })
  return { gw, server }
}

/** A tracer provider whose spans count their `end()` calls. */
function countingProvider() {
  const spans: { name: string; ends: number }[] = []
  const make = (name: string): Span => {
    const record = { name, ends: 0 }
    spans.push(record)
    const span: Span = {
      spanContext: () => ({ traceId: '0'.repeat(31) + '1', spanId: '0'.repeat(15) + '1', traceFlags: 1 }),
      setAttribute: () => span,
      setAttributes: () => span,
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus: () => span,
      updateName: () => span,
      end: () => {
        record.ends++
      },
      isRecording: () => true,
      recordException: () => {},
    }
    return span
  }
  const tracer = { startSpan: make } as unknown as Tracer
  const provider: TracerProvider = { getTracer: () => tracer }
  return { provider, spans }
}

/** Resolves when the next attempt starts; its subscriber is the last cleanup. */
function firstAttempt(): Promise<void> {
  return new Promise<void>((resolve) => {
    const noop = () => {}
    const handlers = { start: () => resolve(), end: noop, asyncStart: noop, asyncEnd: noop, error: noop }
    diagnostics.tracingChannel(PAYWIRE_CHANNELS.attempt).subscribe(handlers)
    cleanups.push(() => diagnostics.tracingChannel(PAYWIRE_CHANNELS.attempt).unsubscribe(handlers))
  })
}

describe('@paywire/otel against hostile conditions', () => {
  it('a tracer whose startSpan throws changes no outcome and crashes nothing', async () => {
    const caught = catchUncaught()
    const broken: TracerProvider = {
      getTracer: () =>
        ({
          startSpan() {
            throw new Error('exporter exploded')
          },
        }) as unknown as Tracer,
    }
    const instrumentation = instrumentPaywire({ tracerProvider: broken })
    cleanups.push(() => instrumentation.disable())
    const { gw } = await gateway(faults.json(200, STATUS))
    const answer = await gw.s2s.getTransStatus({ trans_id: TRANS_ID })
    expect(answer.status).toBe('SETTLED')
    await nextMacrotask()
    expect(caught).toEqual([])
  })

  it('odd messages on the channels are ignored, never thrown on', async () => {
    const caught = catchUncaught()
    const { provider } = countingProvider()
    const instrumentation = instrumentPaywire({ tracerProvider: provider })
    cleanups.push(() => instrumentation.disable())
    for (const odd of [null, undefined, 42, 'text', {}, { parent: 7 }, { reconciliation: null }]) {
      for (const name of [
        PAYWIRE_CHANNELS.operation,
        PAYWIRE_CHANNELS.attempt,
        PAYWIRE_CHANNELS.callback,
        PAYWIRE_CHANNELS.reconcile,
      ]) {
        const channel = diagnostics.tracingChannel(name)
        channel.start.publish(odd as object)
        channel.asyncEnd.publish(odd as object)
      }
      for (const name of [PAYWIRE_CHANNELS.retry, PAYWIRE_CHANNELS.intent, PAYWIRE_CHANNELS.claim])
        diagnostics.channel(name).publish(odd)
    }
    await nextMacrotask()
    expect(caught).toEqual([])
  })

  it('bad options are refused with an error naming the option', () => {
    expect(() => instrumentPaywire({ tracerProvider: {} as TracerProvider })).toThrow(/tracerProvider.*getTracer/)
    expect(() => instrumentPaywire({ meterProvider: 42 as never })).toThrow(/meterProvider.*getMeter/)
    expect(() => instrumentPaywire(42 as never)).toThrow(/instrumentPaywire.*options.*object/)
    expect(() => instrumentPaywire({ tracerProvider: { getTracer: 'x' } as never })).not.toThrow(/is not a function/)
    expect(() => instrumentPaywire(null as never)).not.toThrow(/Cannot read/)
  })

  it('every span of an aborted call ends exactly once', async () => {
    const { provider, spans } = countingProvider()
    const instrumentation = instrumentPaywire({ tracerProvider: provider })
    cleanups.push(() => instrumentation.disable())
    const { gw, server } = await gateway(faults.neverAnswer())
    const attemptStarted = firstAttempt()
    const abort = new AbortController()
    const call = gw.s2s.getTransStatus({ trans_id: TRANS_ID }, { signal: abort.signal })
    await attemptStarted
    abort.abort()
    await rejection(call)
    expect(server.requests.length).toBeLessThanOrEqual(1)
    expect(spans.map((s) => s.name).sort()).toEqual(['POST s2s.getTransStatus', 'card-gateway s2s.getTransStatus'])
    expect(spans.map((s) => s.ends)).toEqual([1, 1])
  })

  it('disable() in the middle of a call ends its open spans once, and nothing after', async () => {
    const caught = catchUncaught()
    const { provider, spans } = countingProvider()
    const instrumentation = instrumentPaywire({ tracerProvider: provider })
    const { gw } = await gateway(faults.neverAnswer())
    const attemptStarted = firstAttempt()
    const abort = new AbortController()
    const call = gw.s2s.getTransStatus({ trans_id: TRANS_ID }, { signal: abort.signal })
    await attemptStarted
    await cleanups.pop()?.()
    instrumentation.disable()
    expect(spans.map((s) => s.ends)).toEqual([1, 1])
    abort.abort()
    await rejection(call)
    await nextMacrotask()
    expect(spans.map((s) => s.ends)).toEqual([1, 1])
    expect(caught).toEqual([])
    for (const name of Object.values(PAYWIRE_CHANNELS)) {
      const tracing = ['operation', 'attempt', 'callback', 'reconcile'].some((kind) => name.endsWith(kind))
      const channel = tracing ? diagnostics.tracingChannel(name) : diagnostics.channel(name)
      expect(channel.hasSubscribers, name).toBe(false)
    }
  })

  it('two instrumentations give each provider its own span per step, until each is disabled', async () => {
    const first = countingProvider()
    const second = countingProvider()
    const one = instrumentPaywire({ tracerProvider: first.provider })
    const two = instrumentPaywire({ tracerProvider: second.provider })
    cleanups.push(() => two.disable())
    const { gw } = await gateway(faults.json(200, STATUS))
    await gw.s2s.getTransStatus({ trans_id: TRANS_ID })
    expect([first.spans.length, second.spans.length]).toEqual([2, 2])
    one.disable()
    await gw.s2s.getTransStatus({ trans_id: TRANS_ID })
    expect([first.spans.length, second.spans.length]).toEqual([2, 4])
    expect([...first.spans, ...second.spans].every((s) => s.ends === 1)).toBe(true)
  })

  it('a call refused before sending and a call over its time limit end every span they started, once', async () => {
    const { provider, spans } = countingProvider()
    const instrumentation = instrumentPaywire({ tracerProvider: provider })
    cleanups.push(() => instrumentation.disable())
    const { gw } = await gateway(faults.neverAnswer())
    await rejection(gw.s2s.getTransStatus({ trans_id: '' }))
    await rejection(gw.s2s.getTransStatus({ trans_id: TRANS_ID }, { headers: { 'x-bad': 'a\r\nb' } }))
    await rejection(gw.s2s.getTransStatus({ trans_id: TRANS_ID }, { timeout: 30, maxRetries: 0 }))
    expect(spans.filter((s) => s.name.startsWith('POST')).length).toBe(1)
    expect(spans.filter((s) => s.ends !== 1)).toEqual([])
  })

  it('many calls leave no span open', async () => {
    const { provider, spans } = countingProvider()
    const instrumentation = instrumentPaywire({ tracerProvider: provider })
    cleanups.push(() => instrumentation.disable())
    const { gw } = await gateway((req, res, n) =>
      (n % 3 === 0 ? faults.json(400, { result: 'ERROR', error_code: 205005 }) : faults.json(200, STATUS))(req, res, n),
    )
    for (let i = 0; i < 300; i++) await gw.s2s.getTransStatus({ trans_id: TRANS_ID }).catch(() => undefined)
    expect(spans.length).toBe(600)
    expect(spans.filter((s) => s.ends !== 1)).toEqual([])
  })
})
