/**
 * OpenTelemetry with @paywire/otel: one span per payment operation, each HTTP attempt a child span.
 * A card purchase whose first attempt is answered 503 is retried, and the span tree printed shows the
 * operation, its two attempts and the retry event; no card data, secret or payer field is in any span.
 *
 * Run: npx tsx examples/observability/otel-spans.ts
 * (always on a local card gateway simulator: the 503 is injected there)
 */
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
  const instrumentation = instrumentPaywire({ tracerProvider })

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
    const exported = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events]))
    expectThat(
      !exported.includes(TEST_CARDS.number) && !exported.includes('ada@example.com'),
      'no card number or payer email in any span',
    )
  } finally {
    instrumentation.disable()
    await gw.close()
    await sim.close()
    await tracerProvider.shutdown()
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
