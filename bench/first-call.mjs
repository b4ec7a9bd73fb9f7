// Cold start to the first answer over a real loopback socket: import a package (or its reference
// build), make a client and await one call answered by the bench server (a separate process): the
// import, undici's first request path and HTTP parser, the connection and the answer, as a cold
// serverless instance pays them. It prints `answered` once the answer is read: cold-start.ts times
// the first answer to that line, and the process to its exit.
// Run by cold-start.ts: node first-call.mjs <specifier> card|remittance <url>
const [specifier, kind, url] = process.argv.slice(2)
const sdk = await import(specifier)

if (kind === 'card') {
  const gw = new sdk.CardGateway({
    checkoutUrl: url,
    s2sUrl: url,
    merchantKey: 'bench-merchant-key',
    clientKey: 'bench-client-key',
    password: 'bench-password',
  })
  await gw.s2s.getTransStatus({ trans_id: 't-1' })
  process.stdout.write('answered\n')
  await gw.close?.()
} else {
  const remit = new sdk.Remittance({ baseUrl: url, apiKey: 'bench-api-key' })
  await remit.lookup.banks()
  process.stdout.write('answered\n')
  await remit.close?.()
}
