/**
 * A TCP proxy between node-postgres and a real PostgreSQL server that cuts the connection at a chosen
 * statement, the way a network fault does:
 * - `request`: the statement never reaches the server (the connection drops while it is on its way);
 * - `reply`: the server runs the statement (and commits it, outside a transaction), and the connection
 *   drops before any of its reply reaches the client.
 * Or it stalls, the way a partition does: nothing is forwarded either way and nothing is closed (no
 * reply, no RST), so each side keeps waiting on a connection the other never hears from again.
 * It reads just enough of the wire protocol: after the startup message, every frontend message is a
 * type byte and a length; a statement ends with a simple Query (`Q`) or with the Sync (`S`) after a
 * Parse (`P`) or a Bind (`B`) of a statement named in an earlier Parse, and the server ends each
 * answer with ReadyForQuery (`Z`).
 */

import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net'

export type CutKind = 'request' | 'reply'

export interface CutProxy {
  readonly port: number
  /** Cuts the next statement whose SQL matches `match` (once), by `kind`; resolves when it has cut. */
  arm(match: RegExp, kind: CutKind): Promise<void>
  /** Statements cut so far. */
  readonly cuts: number
  /**
   * From now on every open connection stalls for good: nothing more is forwarded either way, and a
   * side that closes is not closed on the other (the server keeps its session, the client its
   * socket). New connections are accepted and never answered, until `resume()`.
   */
  stall(): void
  /** New connections are forwarded again; the stalled ones stay stalled until `close()`. */
  resume(): void
  close(): Promise<void>
}

interface Armed {
  match: RegExp
  kind: CutKind
  fired(): void
}

export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  let armed: Armed | undefined
  let cuts = 0
  let stalling = false
  /** Each open connection's switch to its stall. */
  const stallers = new Set<() => void>()
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    sockets.add(client)
    client.on('error', () => {})
    client.on('close', () => sockets.delete(client))
    if (stalling) return // accepted by the kernel, never answered: the startup waits for ever
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    sockets.add(upstream)
    let stalled = false
    const stallThis = () => {
      stalled = true
    }
    stallers.add(stallThis)
    const cut = () => {
      client.destroy()
      upstream.destroy()
    }
    // A stalled connection carries no close across, as a partition carries no FIN or RST.
    client.on('close', () => {
      stallers.delete(stallThis)
      if (!stalled) upstream.destroy()
    })
    upstream.on('close', () => {
      sockets.delete(upstream)
      stallers.delete(stallThis)
      if (!stalled) client.destroy()
    })
    upstream.on('error', () => {})

    let fromClient = Buffer.alloc(0) // bytes not forwarded yet: the statement in progress
    let scanned = 0
    let startup = true
    let parsed = ''
    /** The text of each named statement parsed on this connection. */
    const prepared = new Map<string, string>()
    let statements = 0 // statements forwarded on this connection
    let dropping: { at: number; hit: Armed } | undefined // a `reply` cut waiting for its answer

    client.on('data', (chunk: Buffer) => {
      if (stalled) return
      fromClient = Buffer.concat([fromClient, chunk])
      for (;;) {
        if (startup) {
          if (fromClient.length < 4) return
          const length = fromClient.readInt32BE(0)
          if (fromClient.length < length) return
          startup = false
          upstream.write(fromClient.subarray(0, length))
          fromClient = fromClient.subarray(length)
          continue
        }
        if (fromClient.length < scanned + 5) return
        const type = String.fromCharCode(fromClient[scanned] as number)
        const end = scanned + 1 + fromClient.readInt32BE(scanned + 1)
        if (fromClient.length < end) return
        const body = fromClient.subarray(scanned + 5, end)
        scanned = end
        if ('PBDEHC'.includes(type)) {
          // Part of an extended-protocol statement: held until its Sync decides its fate.
          if (type === 'P') {
            const nameEnd = body.indexOf(0)
            parsed = body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1))
            if (nameEnd > 0) prepared.set(body.toString('utf8', 0, nameEnd), parsed)
          } else if (type === 'B') {
            // A named statement parsed earlier on this connection is only bound by its name since.
            const portalEnd = body.indexOf(0)
            const name = body.toString('utf8', portalEnd + 1, body.indexOf(0, portalEnd + 1))
            if (name !== '') parsed = prepared.get(name) ?? ''
          }
          continue
        }
        const sql = type === 'Q' ? body.toString('utf8', 0, body.indexOf(0)) : type === 'S' ? parsed : undefined
        const hit = armed
        if (sql !== undefined && hit?.match.test(sql)) {
          armed = undefined
          cuts++
          if (hit.kind === 'request') {
            cut() // none of the statement was sent: the server never sees it
            hit.fired()
            return
          }
          // One ReadyForQuery answers the startup, then one per statement: this one's is number 2 + statements.
          dropping = { at: 2 + statements, hit }
        }
        if (sql !== undefined) statements++
        upstream.write(fromClient.subarray(0, end))
        fromClient = fromClient.subarray(end)
        scanned = 0
      }
    })

    let fromServer = Buffer.alloc(0)
    let readies = 0
    upstream.on('data', (chunk: Buffer) => {
      if (stalled) return
      fromServer = Buffer.concat([fromServer, chunk])
      let at = 0
      while (fromServer.length >= at + 5) {
        const type = fromServer[at] as number
        const end = at + 1 + fromServer.readInt32BE(at + 1)
        if (fromServer.length < end) break
        at = end
        if (type !== 0x5a /* Z */) continue
        readies++
        if (dropping && readies === dropping.at) {
          // The statement ran and its whole answer is here: the client never sees any of it.
          cut()
          dropping.hit.fired()
          return
        }
      }
      if (!dropping) {
        client.write(fromServer.subarray(0, at))
        fromServer = fromServer.subarray(at)
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    get cuts() {
      return cuts
    },
    stall() {
      stalling = true
      for (const stallOne of stallers) stallOne()
    },
    resume() {
      stalling = false
    },
    arm(match, kind) {
      return new Promise<void>((resolve) => {
        armed = { match, kind, fired: resolve }
      })
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
