/**
 * Card callbacks on node:http: the handler is the request listener. It reads the raw body itself,
 * records the event, answers `OK` at once and runs `onEvent` from the record.
 *
 * Run: npx tsx examples/callbacks/node-http.ts (against the embedded simulator)
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CallbackHandler } from '@paywire/card-gateway'
import { runIfMain } from '../shared/run.js'
import { driveRecipe, post } from './drive.js'

/** The mount: the handler is the whole server (or one route of it). */
export function callbackServer(handler: CallbackHandler): Server {
  return createServer(handler.node) // recipe: node:http
}

export async function main(): Promise<void> {
  await driveRecipe('node:http', async (handler) => {
    const server = callbackServer(handler).listen(0, '127.0.0.1')
    // What not to do, for the check: a listener that reads the body before the handler sees it.
    const reader = createServer(async (req, res) => {
      for await (const _ of req) {
        // a logging middleware that consumed the stream
      }
      handler.node(req, res)
    }).listen(0, '127.0.0.1')
    await Promise.all([server, reader].map((s) => new Promise((resolve) => s.once('listening', resolve))))
    const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/callbacks/card`
    return {
      deliver: (body, options) => post(url(options?.readFirst ? reader : server), body),
      close: async () => {
        server.close()
        reader.close()
      },
    }
  })
}

runIfMain(import.meta.url, main)
