// Cold start to the first answer: import a package (or its reference build), make a client on a stub
// dispatcher (no network) and await one call. Run by cold-start.ts: node first-call.mjs <specifier> card|remittance
const [specifier, kind] = process.argv.slice(2)
const sdk = await import(specifier)

/** A dispatcher answering every request with `body` on the next turn of the event loop. */
const answering = (body) => ({
  dispatch(_options, handler) {
    setImmediate(() => {
      handler.onConnect(() => {})
      const headers = ['content-type', 'application/json', 'content-length', String(body.length)].map((h) =>
        Buffer.from(h),
      )
      handler.onHeaders(200, headers, () => {}, 'OK')
      handler.onData(body)
      handler.onComplete([])
    })
    return true
  },
})

if (kind === 'card') {
  const status = { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', order_id: 'o-1', trans_id: 't-1' }
  const gw = new sdk.CardGateway({
    checkoutUrl: 'https://gateway.example',
    s2sUrl: 'https://gateway.example',
    merchantKey: 'bench-merchant-key',
    clientKey: 'bench-client-key',
    password: 'bench-password',
    dispatcher: answering(Buffer.from(JSON.stringify(status))),
  })
  await gw.s2s.getTransStatus({ trans_id: 't-1' })
} else {
  const banks = [{ code: '044', name: 'Access Bank' }]
  const remit = new sdk.Remittance({
    baseUrl: 'https://remittance.example',
    apiKey: 'bench-api-key',
    dispatcher: answering(Buffer.from(JSON.stringify(banks))),
  })
  await remit.lookup.banks()
}
