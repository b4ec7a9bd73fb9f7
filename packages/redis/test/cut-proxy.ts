/**
 * A TCP proxy between node-redis and a real redis-server that cuts the connection at a chosen
 * command, the way a network fault does:
 * - `request`: the command never reaches Redis (the connection drops while it is on its way);
 * - `reply`: Redis runs the command, and the connection drops before its reply reaches the client.
 * Commands are counted from `arm()`, leaving out what node-redis sends on its own when it
 * (re)connects (HELLO, CLIENT, SELECT, AUTH, PING), so "the 2nd command" is the 2nd command the code
 * under test sent. After a cut the proxy forwards every new connection as before.
 */

import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net'
import { createClient } from 'redis'
import { createClient as createClient5 } from 'redis-5'
import { afterAll, beforeAll } from 'vitest'
import '../src/index.js' // every store's scripts made, so the rig can load them all
import { everyScript } from '../src/client.js'
import { type Connected, connect } from './helpers.js'

export type CutKind = 'request' | 'reply'

/** The commands node-redis sends by itself on (re)connecting: never counted, never cut. */
const HANDSHAKE = new Set(['HELLO', 'CLIENT', 'SELECT', 'AUTH', 'PING', 'READONLY'])

/**
 * The length in bytes of the first complete RESP2/RESP3 value in `buf` from `start`, or -1 when it
 * is not all there yet. Enough of RESP to count requests (arrays of bulk strings) and replies.
 */
function valueEnd(buf: Buffer, start: number): number {
  if (start >= buf.length) return -1
  const line = buf.indexOf('\r\n', start)
  if (line === -1) return -1
  const type = String.fromCharCode(buf[start] as number)
  const head = buf.toString('latin1', start + 1, line)
  const after = line + 2
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case '#':
    case ',':
    case '(':
      return after
    case '$':
    case '!':
    case '=': {
      const n = Number(head)
      if (n < 0) return after
      return buf.length >= after + n + 2 ? after + n + 2 : -1
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      let n = Number(head)
      if (n < 0) return after
      if (type === '%' || type === '|') n *= 2
      let at = after
      for (let i = 0; i < n; i++) {
        at = valueEnd(buf, at)
        if (at === -1) return -1
      }
      // An attribute (|) precedes the value it describes: the reply is the value after it.
      return type === '|' ? valueEnd(buf, at) : at
    }
    default:
      throw new Error(`cut-proxy: not RESP at byte ${start}: ${JSON.stringify(buf.toString('latin1', start, line))}`)
  }
}

/** The command name of a request (an array of bulk strings), upper-cased. */
function commandName(buf: Buffer, start: number): string {
  const first = buf.indexOf('\r\n', start) + 2 // after *<n>
  const len = buf.indexOf('\r\n', first) // $<len>
  const size = Number(buf.toString('latin1', first + 1, len))
  return buf.toString('latin1', len + 2, len + 2 + size).toUpperCase()
}

interface Armed {
  /** The counted commands to cut, and how. */
  readonly at: ReadonlyMap<number, CutKind>
  seen: number
}

export interface CutProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string
  /**
   * Cuts at the `at`-th (1-based) counted command from now (at each one, given several), in the way
   * `kind` says; or at each command of a map, each in its own way.
   */
  arm(at: number | readonly number[], kind: CutKind): void
  arm(at: ReadonlyMap<number, CutKind>): void
  /** Counts commands from now without cutting, to learn how many a path sends. */
  record(): void
  /** The names of the commands counted since the last `arm()` or `record()`. */
  readonly commands: readonly string[]
  /** How many armed cuts happened. */
  readonly cuts: number
  close(): Promise<void>
}

/** Starts a proxy on a free loopback port in front of redis-server on `targetPort`. */
export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  let armed: Armed | undefined
  let cuts = 0
  let commands: string[] = []
  const sockets = new Set<Socket>()

  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    sockets.add(client)
    sockets.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('close', () => {
      sockets.delete(client)
      upstream.destroy()
    })
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    client.on('error', () => {})
    upstream.on('error', () => {})

    let requests = Buffer.alloc(0)
    let replies = Buffer.alloc(0)
    let sent = 0 // requests forwarded on this connection
    let answered = 0 // replies forwarded on this connection
    let holdReplyOf = -1 // the reply (0-based on this connection) that must never reach the client

    let dying = false // cut: nothing more the client sends on this connection goes anywhere
    client.on('data', (chunk: Buffer) => {
      if (dying) return
      requests = Buffer.concat([requests, chunk])
      let start = 0
      for (;;) {
        const end = valueEnd(requests, start)
        if (end === -1) break
        const name = commandName(requests, start)
        if (!HANDSHAKE.has(name)) {
          commands.push(name)
          if (armed) {
            armed.seen++
            const kind = armed.at.get(armed.seen)
            if (kind) {
              cuts++
              dying = true
              if (kind === 'request') {
                // What came before reaches Redis (end() flushes it); this command and the rest never do.
                upstream.write(requests.subarray(0, start))
                upstream.end()
                client.destroy()
                requests = Buffer.alloc(0)
                return
              }
              holdReplyOf = sent
              upstream.write(requests.subarray(0, end))
              sent++
              requests = Buffer.alloc(0) // what follows is never sent: the connection is about to drop
              return
            }
          }
        }
        upstream.write(requests.subarray(start, end))
        sent++
        start = end
      }
      requests = requests.subarray(start)
    })

    upstream.on('data', (chunk: Buffer) => {
      replies = Buffer.concat([replies, chunk])
      let start = 0
      for (;;) {
        const end = valueEnd(replies, start)
        if (end === -1) break
        const push = replies[start] === 0x3e // '>' : out of band, not the reply of a request
        if (!push && answered === holdReplyOf) {
          // Redis ran the command and answered: the answer is lost with the connection.
          drop()
          return
        }
        client.write(replies.subarray(start, end))
        if (!push) answered++
        start = end
      }
      replies = replies.subarray(start)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port

  return {
    url: `redis://127.0.0.1:${port}`,
    arm(at: number | readonly number[] | ReadonlyMap<number, CutKind>, kind?: CutKind) {
      const cutsAt =
        at instanceof Map
          ? new Map(at)
          : new Map((typeof at === 'number' ? [at] : (at as readonly number[])).map((n) => [n, kind ?? 'request']))
      armed = { at: cutsAt, seen: 0 }
      cuts = 0
      commands = []
    },
    record() {
      armed = undefined
      cuts = 0
      commands = []
    },
    get commands() {
      return commands
    },
    get cuts() {
      return cuts
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** What a cut test drives: the proxy, a client through it (node-redis `major`), one straight to Redis. */
export interface CutRig {
  proxy: CutProxy
  viaProxy: Connected
  direct: Connected
}

/**
 * Starts the proxy and both clients before the suite's tests and closes them after. The client
 * through the proxy reconnects at once after a cut, as a client on a healthy network would.
 */
export function cutRig(server: () => { readonly port: number; readonly url: string }, major: 5 | 6 = 6): CutRig {
  const rig = {} as CutRig
  beforeAll(async () => {
    rig.proxy = await startCutProxy(server().port)
    const options = { url: rig.proxy.url, socket: { reconnectStrategy: () => 5 } }
    const client = major === 6 ? createClient(options) : createClient5(options)
    client.on('error', () => {})
    await client.connect()
    rig.viaProxy = client as unknown as Connected
    rig.direct = await connect(server().url)
    // Every script already on the server, as on one that has served the stores before: each store
    // operation is then one EVALSHA (the first-use path, EVALSHA then EVAL, has its own tests).
    const loader = rig.direct as unknown as { scriptLoad(text: string): Promise<string> }
    for (const script of everyScript()) await loader.scriptLoad(script.text)
  })
  afterAll(async () => {
    await rig.viaProxy?.close()
    await rig.direct?.close()
    await rig.proxy?.close()
  })
  return rig
}
