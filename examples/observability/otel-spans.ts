/**
 * OpenTelemetry with @paywire/otel: one span per payment operation, each HTTP attempt a child span.
 * A card purchase whose first attempt is answered 503 is retried, and the span tree printed shows the
 * operation, its two attempts and the retry event, then the `paywire.client.operation.duration`
 * histogram per operation; no card data, secret or payer field is in any span or metric.
 *
 * Run: npx tsx examples/observability/otel-spans.ts
 * (always on a local card gateway simulator: the 503 is injected there)
 */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { CardGateway } from '@paywire/card-gateway'
import { startCardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'
import { instrumentPaywire } from '@paywire/otel'
import { expectThat, runIfMain } from '../shared/run.js'

export async function main(): Promise<void> {
  // The real OpenTelemetry SDK with an in-memory exporter; in production, your NodeSDK and exporters.
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  // Metrics read on demand here (forceFlush below); in production, a periodic reader and your exporter.
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  const instrumentation = instrumentPaywire({ tracerProvider, meterProvider })

  const sim = await startCardGatewaySimulator()
  // A short backoff keeps the example fast; the default first pause is 250 ms.
  const gw = new CardGateway({ ...sim.clientOptions, backoff: { baseDelayMs: 10 } })
  try {
    sim.simulator.failNext({ status: 503 }) // the first attempt of the purchase is answered 503
    const order = { number: `order-${Date.now()}`, amount: '49.90', currency: 'USD', description: 'Coffee grinder' }
    await gw.checkout.purchase({
      order,
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    })
    await sim.simulator.pay(order.number, { card: TEST_CARDS.number, expiry: TEST_CARDS.success })
    await gw.checkout.status({ order_id: order.number })

    const spans = exporter.getFinishedSpans()
    for (const line of tree(spans)) console.log(`  ${line}`)
    const purchase = spans.find((s) => s.name === 'card-gateway checkout.purchase')
    expectThat(purchase?.attributes['paywire.retry_count'] === 1, 'the purchase span shows one retry')
    const attempts = spans.filter((s) => s.parentSpanContext?.spanId === purchase?.spanContext().spanId)
    expectThat(attempts.length === 2, 'two attempt spans under the purchase')

    await reader.forceFlush()
    const histogram = metricExporter
      .getMetrics()
      .flatMap((m) => m.scopeMetrics.flatMap((scope) => scope.metrics))
      .find((metric) => metric.descriptor.name === 'paywire.client.operation.duration')
    for (const point of histogram?.dataPoints ?? []) {
      const value = point.value as { count: number; sum: number }
      console.log(
        `  ${histogram?.descriptor.name}{paywire.operation=${String(point.attributes['paywire.operation'])}} count=${value.count} sum=${value.sum.toFixed(3)} ${histogram?.descriptor.unit}`,
      )
    }
    expectThat((histogram?.dataPoints.length ?? 0) === 2, 'one duration series per operation (purchase, status)')

    const exported = JSON.stringify([spans.map((s) => [s.name, s.attributes, s.events]), histogram?.dataPoints])
    expectThat(
      !exported.includes(TEST_CARDS.number) && !exported.includes('ada@example.com'),
      'no card number or payer email in any span or metric',
    )
  } finally {
    instrumentation.disable()
    await gw.close()
    await sim.close()
    await tracerProvider.shutdown()
    await meterProvider.shutdown()
  }
}

/** The spans as an indented tree with their paywire and HTTP attributes. */
function tree(spans: readonly ReadableSpan[]): string[] {
  const lines: string[] = []
  const byParent = (id: string | undefined) => spans.filter((s) => s.parentSpanContext?.spanId === id)
  const visit = (span: ReadableSpan, prefix: string, last: boolean, root: boolean) => {
    const attributes = Object.entries(span.attributes)
      .filter(([k]) =>
        /^(paywire\.(attempt|retry_count|result|outcome_unknown)|http\.response\.status_code|error\.type)$/.test(k),
      )
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ')
    const branch = root ? '' : last ? '└── ' : '├── '
    lines.push(`${prefix}${branch}${span.name}  ${attributes}`)
    for (const event of span.events) {
      const reason = event.attributes?.['paywire.retry.reason']
      lines.push(
        `${prefix}${root ? '' : last ? '    ' : '│   '}· event ${event.name} ${reason ? `(${String(reason)})` : ''}`,
      )
    }
    const kids = byParent(span.spanContext().spanId)
    kids.forEach((kid, i) => {
      visit(kid, root ? '' : `${prefix}${last ? '    ' : '│   '}`, i === kids.length - 1, false)
    })
  }
  for (const root of byParent(undefined)) visit(root, '', true, true)
  return lines
}

runIfMain(import.meta.url, main)
