/**
 * The attempt's handler (attempt-handler.ts) from the attacker's side, from an independent review: real undici
 * `Client`s against loopback servers that misbehave (1xx storms, 101, 204/304 declaring a length,
 * lengths that lie, chunked bodies at and past the cap, UTF-8 and the byte order mark split across
 * chunks, trailers, closes right after the headers), the handler driven by hand in odd orders, and a
 * dispatcher of the caller's own calling undici's former methods. Every promise the transport awaits
 * must settle, and settle once.
 */

import { createRequire } from 'node:module'
import { MockAgent } from 'undici'
import { describe, expect, it } from 'vitest'
import { BodyTooLarge } from '../src/transport/attempt-handler.js'
import { abortSource, attemptRig, GET, handler } from './attempt-rig.js'

/** undici's own header reading: what `onResponseStart` is given on the public path. */
const undiciUtil = createRequire(import.meta.url)('undici/lib/core/util.js') as {
  parseHeaders(raw: ReadonlyArray<string | Buffer>): Record<string, string | string[]>
}

const { rawServer, client } = attemptRig()

/** Sends one request through a real undici Client to a server that writes `answer` (buffers written one by one). */
async function exchange(answer: readonly (string | Buffer)[], maxBytes = 1024, end = false) {
  const { url } = await rawServer((socket) => {
    for (const part of answer) socket.write(part)
    if (end) socket.end()
  })
  const { h, interim } = handler(abortSource(), maxBytes)
  client(url).dispatch(GET, h)
  return { h, interim }
}

/** How a promise has settled once the queued callbacks ran: nothing here waits on I/O. */
async function stateOf(promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  let state: 'resolved' | 'rejected' | 'pending' = 'pending'
  promise.then(
    () => {
      state = 'resolved'
    },
    () => {
      state = 'rejected'
    },
  )
  await new Promise((resolve) => setImmediate(resolve))
  return state
}

/** A chunked body made of the given pieces, each its own chunk. */
function chunked(pieces: readonly Buffer[], trailer = ''): Buffer[] {
  const out: Buffer[] = [Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n')]
  for (const piece of pieces) out.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
  out.push(Buffer.from(`0\r\n${trailer}\r\n`))
  return out
}

describe('the body as text', () => {
  it('a multi-byte UTF-8 character split across two chunks is decoded whole', async () => {
    const euro = Buffer.from('€', 'utf8') // e2 82 ac
    const { h } = await exchange(
      chunked([
        Buffer.concat([Buffer.from('{"a":"'), euro.subarray(0, 2)]),
        Buffer.concat([euro.subarray(2), Buffer.from('"}')]),
      ]),
    )
    await h.head
    expect(await h.text()).toBe('{"a":"€"}')
  })

  it('a byte order mark split across chunks is left out; a BOM-only body is empty text', async () => {
    const split = await exchange(chunked([Buffer.from([0xef]), Buffer.from([0xbb, 0xbf]), Buffer.from('{"a":1}')]))
    await split.h.head
    expect(await split.h.text()).toBe('{"a":1}')
    const only = await exchange([
      Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n'),
      Buffer.from([0xef, 0xbb, 0xbf]),
    ])
    await only.h.head
    expect(await only.h.text()).toBe('')
    // Only a leading mark goes: one in the middle is text.
    const inner = await exchange(chunked([Buffer.from('a'), Buffer.from([0xef, 0xbb, 0xbf])]))
    await inner.h.head
    expect(await inner.h.text()).toBe('a\uFEFF')
  })

  it('chunked: exactly maxBytes is read whole, one byte more fails the body, never the head', async () => {
    const at = await exchange(chunked([Buffer.alloc(600, 0x61), Buffer.alloc(424, 0x62)]), 1024)
    expect((await at.h.head).statusCode).toBe(200)
    expect((await at.h.text()).length).toBe(1024)
    const past = await exchange(chunked([Buffer.alloc(600, 0x61), Buffer.alloc(425, 0x62)]), 1024)
    expect((await past.h.head).statusCode).toBe(200)
    await expect(past.h.text()).rejects.toBeInstanceOf(BodyTooLarge)
  })

  it('trailers after a chunked body: the body is read, the trailers ignored', async () => {
    const { h } = await exchange([
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: x-sum\r\n\r\n',
      '7\r\n{"a":1}\r\n0\r\nx-sum: 1\r\n\r\n',
    ])
    await h.head
    expect(await h.text()).toBe('{"a":1}')
  })

  it('a body of no declared length ended by the server closing right after the headers: empty text', async () => {
    const { h } = await exchange(['HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n'], 1024, true)
    expect((await h.head).statusCode).toBe(200)
    expect(await h.text()).toBe('')
  })

  it('a length that says less than the server sends: the declared bytes are the body', async () => {
    const { h } = await exchange(['HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n{"a":1}{"b":2}'])
    await h.head
    expect(await h.text()).toBe('{"a":1}')
  })

  it('204 and 304 declaring a length they do not carry: the head comes, then the body fails (never left waiting)', async () => {
    for (const status of ['204 No Content', '304 Not Modified']) {
      const { h } = await exchange([`HTTP/1.1 ${status}\r\ncontent-length: 5\r\n\r\n`])
      expect((await h.head).statusCode).toBe(Number(status.slice(0, 3)))
      await expect(h.text()).rejects.toMatchObject({ code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' })
    }
  })
})

describe('interim answers and protocol switches', () => {
  it('a storm of 1000 interim 103s: each told, the final answer read', async () => {
    const { h, interim } = await exchange([
      'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n'.repeat(1000),
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
    ])
    expect((await h.head).statusCode).toBe(200)
    expect(await h.text()).toBe('ok')
    expect(interim).toHaveLength(1000)
  })

  it('a 101 nobody asked for, with or without upgrade headers: the head fails at once', async () => {
    const asked = await exchange(['HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\nconnection: upgrade\r\n\r\n'])
    await expect(asked.h.head).rejects.toBeInstanceOf(Error)
    const bare = await exchange([
      'HTTP/1.1 101 Switching Protocols\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
    ])
    await expect(bare.h.head).rejects.toBeInstanceOf(Error)
  })

  it('a 100 Continue nobody asked for fails the head (undici drops the connection)', async () => {
    const { h } = await exchange(['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'])
    await expect(h.head).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' })
  })
})

describe('the handler driven by hand, in odd orders', () => {
  it('an error before undici started it (no controller): the head fails, nothing throws', async () => {
    const { h } = handler()
    h.onResponseError(undefined, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
    await expect(h.head).rejects.toMatchObject({ code: 'ECONNREFUSED' })
    expect(h.written).toBe(false)
    // A late start of the same request is dropped unwritten.
    const aborts: unknown[] = []
    h.onConnect((error) => aborts.push(error))
    expect(h.written).toBe(false)
    expect(aborts).toHaveLength(1)
  })

  it('the end, then the abort: the body stays read; the abort, then the end: the body fails', async () => {
    const signal = abortSource()
    const { h } = handler(signal)
    h.onConnect(() => {})
    h.onHeaders(200, ['content-length', '2'])
    h.onData(Buffer.from('ok'))
    h.onComplete()
    signal.fire()
    expect(await h.text()).toBe('ok')
    const late = abortSource()
    const second = handler(late).h
    second.onConnect(() => {})
    second.onHeaders(200, [])
    second.onData(Buffer.from('o'))
    late.fire()
    second.onData(Buffer.from('k'))
    second.onComplete()
    await expect(second.text()).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' })
  })

  it('aborted while it waited, before the handler saw anything: head fails, undici is told at its start', async () => {
    const signal = abortSource()
    const { h } = handler(signal)
    signal.fire()
    signal.fire()
    await expect(h.head).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' })
    expect(h.gone()).toBe(true)
  })

  // DEFECT: a caller's dispatcher calling the former `onData` with a plain Uint8Array (what a
  // WHATWG stream or `fetch` body hands out) gets the array's comma-joined numbers as the body text.
  it("a caller's dispatcher handing the body as a Uint8Array: the text is the body's text", async () => {
    const { h } = handler()
    h.onConnect(() => {})
    h.onHeaders(200, ['content-type', 'application/json'])
    h.onData(new TextEncoder().encode('{"a":1}') as Buffer)
    h.onComplete()
    await h.head
    expect(await h.text()).toBe('{"a":1}')
  })

  // DEFECT (minor): a request that ends with no final status (undici's MockAgent replying with a
  // 1xx, or any dispatcher completing after an interim head) leaves `head` pending until the
  // attempt's deadline: the call then reads as a TimeoutError after the whole timeout, where the
  // former handler failed it at once. The interim reply's body is even gathered as the body.
  it('a dispatcher that completes after an interim status only: the head fails at once', async () => {
    const agent = new MockAgent()
    agent.disableNetConnect()
    agent.get('http://svc.test').intercept({ path: '/x', method: 'GET' }).reply(102, 'not the answer')
    const { h, interim } = handler()
    agent.dispatch({ origin: 'http://svc.test', ...GET }, h)
    expect(interim).toEqual([102])
    expect(await stateOf(h.head)).toBe('rejected')
    await agent.close()
  })

  // DEFECT: the former `onHeaders` parses raw headers its own way (`headersOf`), not as undici's
  // public path does (`util.parseHeaders`, what `onResponseStart` is given): plain assignment merges
  // a header named like an Object.prototype member with that member (`constructor` becomes
  // [Object, 'c'], shown as "function Object() { [native code] }, c"), a `__proto__` header replaces
  // the object's prototype with an array instead of being kept, and values are decoded as UTF-8
  // where undici reads Latin-1 (one character per byte above 0x7f).
  it("a caller's dispatcher: raw headers read exactly as undici's public path reads them", async () => {
    const lists: Array<Array<string | Buffer>> = [
      ['Constructor', 'c', 'toString', 't', 'content-length', '0'],
      ['__proto__', 'p', 'x-a', '1'],
      ['hasOwnProperty', 'h', 'hasOwnProperty', 'i'],
      [Buffer.from('x-name'), Buffer.from([0x4a, 0xe9, 0x72])],
    ]
    for (const raw of lists) {
      const { h } = handler()
      h.onConnect(() => {})
      h.onHeaders(200, raw)
      h.onComplete()
      const { headers } = await h.head
      const expected = undiciUtil.parseHeaders(raw) as Record<string, unknown>
      expect(Object.getPrototypeOf(headers), String(raw)).toBe(Object.getPrototypeOf(expected))
      expect(Object.entries(headers), String(raw)).toEqual(Object.entries(expected))
    }
  })

  // DEFECT: `text()` asked twice before the end settles only the second promise.
  it('text() asked twice before the body ended: both settle', async () => {
    const { h } = handler()
    h.onConnect(() => {})
    h.onHeaders(200, [])
    await h.head
    const first = h.text()
    const second = h.text()
    h.onData(Buffer.from('ok'))
    h.onComplete()
    expect(await second).toBe('ok')
    expect(await stateOf(first)).toBe('resolved')
  })
})
