import { HttpClient, safe } from '@paywire/core'
import { Remittance } from '@paywire/remittance'
import { request } from 'undici'
import { StubDispatcher } from './stub.js'

const stub = new StubDispatcher()
const url = 'https://stub.example/api/lookup/banks'
const http = new HttpClient({ packageName: 'x', packageVersion: '1', options: { dispatcher: stub } })
const handler = {
  decode: (r: { json: unknown }) => r.json,
  toError: () => {
    throw new Error('no')
  },
}
const remit = new Remittance({ baseUrl: 'https://stub.example', apiKey: 'k', dispatcher: stub })
const headers = { 'x-code': 'k', 'user-agent': 'u', accept: 'application/json' }
const fns: Record<string, () => Promise<unknown>> = {
  raw: async () => {
    const r = await request(url, { method: 'GET', headers, dispatcher: stub })
    return JSON.parse(await r.body.text())
  },
  engine: () =>
    http.send(
      { operation: 'x', method: 'GET', url, headers: { 'x-code': 'k' }, retry: safe } as never,
      handler as never,
    ),
  sdk: () => remit.lookup.banks(),
}
for (let round = 0; round < 5; round++) {
  const line: string[] = []
  for (const [name, fn] of Object.entries(fns)) {
    for (let i = 0; i < 5000; i++) await fn()
    const s = process.cpuUsage()
    for (let i = 0; i < 30000; i++) await fn()
    const u = process.cpuUsage(s)
    line.push(`${name} ${((u.user + u.system) / 30000).toFixed(1)}`)
  }
  console.log(line.join('  '))
}
