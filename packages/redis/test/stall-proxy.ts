/** A loopback TCP proxy in front of redis-server that can stall like a hung server (no cut, no answer). */

import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net'

export interface StallProxy {
  readonly url: string
  /** From now on nothing is forwarded either way, and new connections are accepted and never answered. */
  stall(): void
  close(): Promise<void>
}

/** A loopback TCP proxy in front of redis-server that can stall like a hung server. */
export async function startStallProxy(targetPort: number): Promise<StallProxy> {
  let stalled = false
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    sockets.add(client)
    client.on('error', () => {})
    client.on('close', () => sockets.delete(client))
    if (stalled) return // accepted by the kernel, never answered
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    sockets.add(upstream)
    upstream.on('error', () => {})
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    client.on('close', () => upstream.destroy())
    client.on('data', (chunk) => {
      if (!stalled) upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      if (!stalled) client.write(chunk)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stall() {
      stalled = true
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
