/**
 * The attempt's handler on undici's public handler interface (attempt-handler.ts), driven by real
 * undici `Client`s against loopback servers that misbehave: a request given up while it waits for
 * the socket is never written, interim answers are told and skipped, a body past the cap or cut
 * short fails the body (never the head it already gave), and a dispatcher of the caller's own that
 * calls undici's former handler methods gets the same result.
 */

import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { BodyTooLarge } from '../src/transport/attempt-handler.js'
import { abortSource, attemptRig, GET, handler } from './attempt-rig.js'

const { rawServer, client } = attemptRig()

describe('AttemptHandler, on undici’s public handler interface', () => {
  it('given up while it waits for the socket: fails at once, and undici never writes it', async () => {
    const held: Socket[] = []
    let arrived: () => void = () => {}
    const firstArrived = new Promise<void>((resolve) => {
      arrived = resolve
    })
    const gateway = await rawServer((socket, n) => {
      if (n === 1) {
        held.push(socket) // answered by the test, once the second was given up
        arrived()
      } else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nthird')
    })
    const c = client(gateway.url)
    const first = handler()
    c.dispatch(GET, first.h)
    const waitingSignal = abortSource()
    const waiting = handler(waitingSignal)
    c.dispatch(GET, waiting.h)
    await firstArrived // the first holds the only socket: the second waits in undici's queue
    waitingSignal.fire()
    await expect(waiting.h.head).rejects.toMatchObject({ name: 'AbortError', code: 'UND_ERR_ABORTED' })
    expect(waiting.h.written).toBe(false)
    held[0]?.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    expect((await first.h.head).statusCode).toBe(200)
    expect(await first.h.text()).toBe('ok')
    expect(first.h.written).toBe(true)
    // A third, queued behind the second: had the second been written, the server would count three.
    const third = handler()
    c.dispatch(GET, third.h)
    expect(await third.h.head.then(() => third.h.text())).toBe('third')
    expect(gateway.requests()).toBe(2)
  })

  it('interim 102 and 103 are told and skipped; the final answer is read', async () => {
    const gateway = await rawServer((socket) =>
      socket.write(
        'HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n' +
          'HTTP/1.1 201 Created\r\ncontent-length: 7\r\n\r\n{"a":1}',
      ),
    )
    const { h, interim } = handler()
    client(gateway.url).dispatch(GET, h)
    expect((await h.head).statusCode).toBe(201)
    expect(await h.text()).toBe('{"a":1}')
    expect(interim).toEqual([102, 103])
  })

  it('a byte order mark is not part of the text', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])
    const gateway = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`)
      socket.write(body)
    })
    const { h } = handler()
    client(gateway.url).dispatch(GET, h)
    await h.head
    expect(await h.text()).toBe('{"a":1}')
  })

  it('a chunked body past maxBytes fails the body with BodyTooLarge and drops the socket', async () => {
    let closed: () => void = () => {}
    const socketClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    const gateway = await rawServer((socket) => {
      socket.on('close', () => closed())
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n')
      for (let i = 0; i < 8; i++) socket.write(`200\r\n${'x'.repeat(0x200)}\r\n`)
    })
    const { h } = handler(abortSource(), 1024)
    client(gateway.url).dispatch(GET, h)
    expect((await h.head).statusCode).toBe(200)
    await expect(h.text()).rejects.toBeInstanceOf(BodyTooLarge)
    await socketClosed // undici dropped the connection: the rest of the body reaches nobody
  })

  it('given up mid-body: the body fails with the reason; what undici reports after is ignored', async () => {
    const gateway = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"a":'))
    const signal = abortSource()
    const { h } = handler(signal)
    client(gateway.url).dispatch(GET, h)
    await h.head
    const body = h.text()
    signal.fire()
    await expect(body).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' })
    h.onResponseError(undefined, new Error('late'))
    await expect(h.text()).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' })
  })

  it('a body cut short by the server fails the body, never leaves it waiting', async () => {
    const gateway = await rawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"a":')
    })
    const { h } = handler()
    client(gateway.url).dispatch(GET, h)
    await h.head
    await expect(h.text()).rejects.toBeInstanceOf(Error)
  })

  it("a dispatcher calling undici's former methods: raw headers lower-cased, a repeated one an array", async () => {
    const { h } = handler()
    const aborts: unknown[] = []
    h.onConnect((error) => aborts.push(error))
    expect(h.written).toBe(true)
    h.onHeaders(200, [Buffer.from('Set-Cookie'), Buffer.from('a=1'), 'set-cookie', 'b=2', 'Content-Type', 'text/plain'])
    h.onData(Buffer.from('hi'))
    h.onComplete()
    expect(await h.head).toEqual({
      statusCode: 200,
      headers: { 'set-cookie': ['a=1', 'b=2'], 'content-type': 'text/plain' },
    })
    expect(await h.text()).toBe('hi')
    expect(aborts).toEqual([])
  })

  it('aborted before undici started it: the abort reaches undici at the start, and nothing is written', () => {
    const signal = abortSource()
    const { h } = handler(signal)
    signal.fire()
    const aborts: unknown[] = []
    h.onConnect((error) => aborts.push(error))
    expect(h.written).toBe(false)
    expect(aborts).toHaveLength(1)
    return expect(h.head).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' })
  })
})
