/**
 * The simulator's side of the card-md5-strrev scheme, written apart from the SDK's signer so a shared
 * bug cannot hide: the hash it expects of an S2S action, the S2S callbacks it signs, and a payer
 * lookup over its own payments for clients in tests.
 */

import { readPath, reverse, type SimulatedPayment, simulatorStrrevHash } from './rules.js'

/** A `payerLookup` reading the simulator's payments (what a merchant reads from its own records). */
export type SimulatorPayerLookup = (ref: {
  transId?: string
  orderId?: string
}) => { email: string; cardFirst6: string; cardLast4: string } | undefined

export function simulatorPayerLookup(payments: readonly SimulatedPayment[]): SimulatorPayerLookup {
  return (ref) => {
    const p =
      (ref.transId !== undefined ? payments.find((x) => x.trans_id === ref.transId) : undefined) ??
      (ref.orderId !== undefined ? payments.find((x) => x.order_id === ref.orderId) : undefined)
    if (!p?.payerEmail || !p.cardDigits) return undefined
    return { email: p.payerEmail, cardFirst6: p.cardDigits.slice(0, 6), cardLast4: p.cardDigits.slice(6) }
  }
}

/** `md5(UPPER(strrev(email) + PASSWORD + trans_id + strrev(first6 + last4)))` of a payment. */
function transactionHash(p: SimulatedPayment, transId: string, password: string): string {
  return simulatorStrrevHash(`${reverse(p.payerEmail ?? '')}${password}${transId}${reverse(p.cardDigits ?? '')}`)
}

/**
 * The hash an S2S action must carry on the strrev scheme, or `undefined` when none can match: the
 * payer email and card digits come from the payment its trans_id (RECURRING_SALE:
 * recurring_first_trans_id) names, so an unknown or unpaid payment, and GET_TRANS_STATUS_BY_ORDER
 * (no published formula), are refused as "Hash is not valid".
 */
export function strrevExpected(
  action: string,
  body: Record<string, unknown>,
  payments: readonly SimulatedPayment[],
  password: string,
): string | undefined {
  const field = (name: string) => readPath(body, name) ?? ''
  const byTrans = (id: string) => payments.find((p) => p.trans_id === id)
  if (action === 'CREATE_SCHEDULE') return simulatorStrrevHash(reverse(password))
  if (action === 'DELETE_SCHEDULE' || action === 'UPDATE_SCHEDULE') {
    return simulatorStrrevHash(reverse(`${field('schedule_id')}${password}`))
  }
  if (action === 'RECURRING_SALE') {
    const first = byTrans(field('recurring_first_trans_id'))
    if (first?.cardDigits === undefined) return undefined
    return simulatorStrrevHash(`${reverse(first.payerEmail ?? '')}${password}${reverse(first.cardDigits)}`)
  }
  if (action === 'GET_TRANS_STATUS_BY_ORDER') return undefined
  const p = byTrans(field('trans_id'))
  return p?.cardDigits === undefined ? undefined : transactionHash(p, field('trans_id'), password)
}

/** An S2S CARD callback body (rule Platform 17) after `action`, signed on the strrev scheme. */
export function strrevCallbackBody(
  p: SimulatedPayment,
  action: string,
  s2sStatus: string,
  password: string,
  extra: Readonly<Record<string, string>> = {},
): string {
  const params = new URLSearchParams({
    action,
    result: 'SUCCESS',
    status: s2sStatus,
    order_id: p.order_id,
    trans_id: p.trans_id,
    amount: p.capturedAmount ?? p.amount,
    currency: p.currency,
    ...extra,
  })
  params.append('hash', transactionHash(p, p.trans_id, password))
  return params.toString()
}
