// Names a documentation snippet may use without defining them: a snippet shows one step, not a program.
declare const gw: import('@paywire/card-gateway').CardGateway
declare const remit: import('@paywire/remittance').Remittance
declare const bills: import('@paywire/bill-payment').BillPayment
declare const checkoutUrl: string
declare const s2sUrl: string
declare const merchantKey: string
declare const clientKey: string
declare const password: string
declare const baseUrl: string
declare const apiKey: string
declare const clientId: string
declare const clientSecret: string
declare const trans_id: string
declare const order_id: string
declare const payment_id: string
declare const schedule_id: string
declare const beneficiaryId: string
declare const transactionId: string
declare const referenceNumber: string
declare const rawBody: Buffer
declare const error: unknown
declare function reconcile(reference: string): Promise<void>
