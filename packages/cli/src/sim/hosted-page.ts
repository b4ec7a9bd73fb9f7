/**
 * The card simulator's hosted payment page (`redirect_url` of a purchase): a form with the sandbox
 * test cards, so a browser can complete a payment as a payer would, and then the way back to the
 * merchant's `success_url`, `cancel_url` (or `error_url`), as the gateway sends the payer.
 */

import { type CardGatewaySimulator, type SimulatedPayment, TEST_CARDS } from '@paywire/card-gateway/testing'

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

/** What the hosted page answers: a page, or (`location`) the payer sent back to the merchant with a 303. */
export interface HostedAnswer {
  readonly status: number
  readonly html: string
  readonly location?: string
}

/**
 * Where the payer goes back once the page is done with them: `success_url` for an authorised or
 * settled payment, `error_url` (else `cancel_url`) for a declined one, `cancel_url` when the payer
 * cancels. The URL is the one the purchase sent, exactly: the platform documents no parameter it
 * appends, so none is (rule Platform 29). Nothing while a 3DS challenge is open.
 */
function returnUrl(payment: SimulatedPayment, cancelled: boolean): string | undefined {
  const urls = payment.returnUrls ?? {}
  if (cancelled) return urls.cancel
  if (payment.status === 'pending' || payment.status === 'settled') return urls.success
  if (payment.status === 'decline') return urls.error ?? urls.cancel
  return undefined
}

/** The answer to `GET` (the page) or `POST` (a card chosen, the 3DS answered, or cancel) on `/card/checkout/<payment_id>`. */
export function hostedPage(
  simulator: CardGatewaySimulator,
  method: string,
  paymentId: string,
  form: URLSearchParams,
): HostedAnswer {
  const payment = simulator.payments.find((p) => p.payment_id === paymentId)
  if (!payment) return { status: 404, html: page('Payment not found', `<p>No payment ${escapeHtml(paymentId)}.</p>`) }
  let message = ''
  if (method === 'POST') {
    const cancelled = form.get('action') === 'cancel'
    try {
      if (cancelled) {
        if (payment.status !== 'prepare')
          throw new Error(`payment ${paymentId} is ${payment.status}: too late to cancel`)
      } else if (form.get('action') === '3ds') simulator.complete3ds(paymentId)
      else simulator.pay(paymentId, { card: TEST_CARDS.number, expiry: form.get('expiry') ?? TEST_CARDS.success })
    } catch (error) {
      return { status: 409, html: page('Not possible', `<p>${escapeHtml((error as Error).message)}</p>`) }
    }
    message = `<p><strong>Payment is now ${escapeHtml(payment.status)}.</strong></p>`
    const location = returnUrl(payment, cancelled)
    if (location !== undefined) {
      const link = `<p>Back to the shop: <a href="${escapeHtml(location)}">${escapeHtml(location)}</a></p>`
      return { status: 303, html: page('paywire simulator — back to the shop', `${message}${link}`), location }
    }
  }
  const summary = `<p>Order ${escapeHtml(payment.order_id)}: ${escapeHtml(payment.amount)} ${escapeHtml(payment.currency)} — ${escapeHtml(payment.description)}</p>
<p>Status: ${escapeHtml(payment.status)}</p>`
  let actions = ''
  if (payment.status === 'prepare') {
    actions = CHOICES.map(
      ([expiry, label]) =>
        `<form method="post"><input type="hidden" name="expiry" value="${escapeHtml(expiry)}"><button>${escapeHtml(label)} (${TEST_CARDS.number} ${escapeHtml(expiry)})</button></form>`,
    ).join('\n')
    actions +=
      '\n<form method="post"><input type="hidden" name="action" value="cancel"><button>cancel: back to the shop</button></form>'
  } else if (payment.status === '3ds') {
    actions =
      '<form method="post"><input type="hidden" name="action" value="3ds"><button>answer the 3DS challenge</button></form>'
  }
  return { status: 200, html: page('paywire simulator — pay', `${message}${summary}${actions}`) }
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
}
