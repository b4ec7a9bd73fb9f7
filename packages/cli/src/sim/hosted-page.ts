/**
 * The card simulator's hosted payment page (`redirect_url` of a purchase): a form with the sandbox
 * test cards, so a browser can complete a payment as a payer would.
 */

import { type CardGatewaySimulator, TEST_CARDS } from '@paywire/card-gateway/testing'

const CHOICES: ReadonlyArray<readonly [string, string]> = [
  [TEST_CARDS.success, 'pay: authorised'],
  [TEST_CARDS.decline, 'pay: declined'],
  [TEST_CARDS.captureFails, 'pay: authorised, capture fails'],
  [TEST_CARDS.threeDsSuccess, '3DS challenge, then authorised'],
  [TEST_CARDS.threeDsDecline, '3DS challenge, then declined'],
]

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

/** The answer to `GET` (the page) or `POST` (a card chosen) on `/card/checkout/<payment_id>`. */
export function hostedPage(
  simulator: CardGatewaySimulator,
  method: string,
  paymentId: string,
  form: URLSearchParams,
): { status: number; html: string } {
  const payment = simulator.payments.find((p) => p.payment_id === paymentId)
  if (!payment) return { status: 404, html: page('Payment not found', `<p>No payment ${escapeHtml(paymentId)}.</p>`) }
  let message = ''
  if (method === 'POST') {
    try {
      if (form.get('action') === '3ds') simulator.complete3ds(paymentId)
      else simulator.pay(paymentId, { card: TEST_CARDS.number, expiry: form.get('expiry') ?? TEST_CARDS.success })
    } catch (error) {
      return { status: 409, html: page('Not possible', `<p>${escapeHtml((error as Error).message)}</p>`) }
    }
    message = `<p><strong>Payment is now ${escapeHtml(payment.status)}.</strong></p>`
  }
  const summary = `<p>Order ${escapeHtml(payment.order_id)}: ${escapeHtml(payment.amount)} ${escapeHtml(payment.currency)} — ${escapeHtml(payment.description)}</p>
<p>Status: ${escapeHtml(payment.status)}</p>`
  let actions = ''
  if (payment.status === 'prepare') {
    actions = CHOICES.map(
      ([expiry, label]) =>
        `<form method="post"><input type="hidden" name="expiry" value="${escapeHtml(expiry)}"><button>${escapeHtml(label)} (${TEST_CARDS.number} ${escapeHtml(expiry)})</button></form>`,
    ).join('\n')
  } else if (payment.status === '3ds') {
    actions =
      '<form method="post"><input type="hidden" name="action" value="3ds"><button>answer the 3DS challenge</button></form>'
  }
  return { status: 200, html: page('paywire simulator — pay', `${message}${summary}${actions}`) }
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
}
