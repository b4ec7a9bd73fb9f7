import { once } from 'node:events'
import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { it, onTestFinished } from 'vitest'
import { post, jsonHandler, makeClient } from './helpers.js'
import { keyed } from '@paywire/core'

const ok = (n: number) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${`{"n":${n}}`.length}\r\n\r\n{"n":${n}}`
const stale = 'HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 21\r\n\r\n{"error":"not pendi"}'

async function srv(mode: string) {
  let reqs = 0
  const server = createServer((socket: Socket) => {
    let buf = ''
    socket.on('data', (d) => {
      buf += d.toString('latin1')
      let i
      while ((i = buf.indexOf('\r\n\r\n')) !== -1) {
        const head = buf.slice(0, i); const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
        if (buf.length < i + 4 + len) break
        buf = buf.slice(i + 4 + len)
        reqs++
        const n = reqs
        if (n === 1) {
          if (mode === 'one-write') socket.write(ok(n) + stale)
          else if (mode === 'two-writes') { socket.write(ok(n)); socket.write(stale) }
          else if (mode === 'immediate') { socket.write(ok(n)); setImmediate(() => socket.write(stale)) }
          else if (mode === 'delay5') { socket.write(ok(n)); setTimeout(() => socket.write(stale), 5) }
        } else socket.write(ok(n))
      }
    })
  })
  server.listen(0, '127.0.0.1'); await once(server, 'listening')
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, reqs: () => reqs }
}

for (const mode of ['one-write', 'two-writes', 'immediate', 'delay5']) {
  for (const seq of ['sequential', 'queued']) {
    it(`${mode} ${seq}`, async () => {
      const s = await srv(mode)
      const client = makeClient({ maxSockets: 1, maxRetries: 0, timeout: 1000 })
      onTestFinished(() => client.close())
      const out: string[] = []
      const fmt = (p: Promise<unknown>) => p.then((v) => `ok ${JSON.stringify(v)}`, (e) => `${e.name} sent=${e.requestSent} unknown=${e.outcomeUnknown} ${e.message.slice(0, 80)}`)
      if (seq === 'sequential') {
        out.push(await fmt(client.send(post(s.url, { retry: keyed }), jsonHandler)))
        out.push(await fmt(client.send(post(s.url, { retry: keyed }), jsonHandler)))
      } else {
        const a = fmt(client.send(post(s.url, { retry: keyed }), jsonHandler))
        const b = fmt(client.send(post(s.url, { retry: keyed }), jsonHandler))
        out.push(await a, await b)
      }
      console.log(mode, seq, out, 'server saw', s.reqs())
    })
  }
}
