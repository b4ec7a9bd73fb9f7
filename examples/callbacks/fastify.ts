/**
 * Card callbacks in Fastify 5: inside an encapsulated plugin, a content-type parser that keeps the
 * body as a Buffer (the rest of the app keeps its parsers), and `handler.handle(body)` whose answer
 * the route sends. Fastify answers 415 to a form body without a parser, so the route needs this one.
 *
 * Run: npx tsx examples/callbacks/fastify.ts (against the embedded simulator)
 */
import type { CallbackHandler } from '@paywire/card-gateway'
import Fastify, { type FastifyInstance } from 'fastify'
import { runIfMain } from '../shared/run.js'
import { driveRecipe, post } from './drive.js'

/** The mount: a scoped raw-body parser, then the answer of `handle` sent as it is. */
export async function callbackApp(handler: CallbackHandler): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 65_536 }, (_req, body, done) => done(null, body))
    scope.post('/callbacks/card', async (request, reply) => {
      const a = await handler.handle(request.body as Buffer) // recipe: Fastify 5
      return reply.code(a.status).headers(a.headers).send(a.body)
    })
  })
  return app
}

export async function main(): Promise<void> {
  await driveRecipe('fastify', async (handler) => {
    const app = await callbackApp(handler)
    // What not to do, for the check: a form parser that turns the body into an object first.
    await app.register(async (scope) => {
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
        done(null, Object.fromEntries(new URLSearchParams(String(body)))),
      )
      scope.post('/callbacks/parsed-first', async (request, reply) => {
        const a = await handler.handle(request.body as Buffer)
        return reply.code(a.status).headers(a.headers).send(a.body)
      })
    })
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    return {
      deliver: (body, options) => post(`${base}/callbacks/${options?.readFirst ? 'parsed-first' : 'card'}`, body),
      close: () => app.close(),
    }
  })
}

runIfMain(import.meta.url, main)
