/// <reference path="./undici-modules.d.ts" />
/**
 * undici's `Agent` and `request`, loaded from their own modules rather than undici's main entry:
 * loading the main entry of undici 7 installs its own Agent as the process-wide dispatcher of
 * Node's built-in `fetch` (a global symbol both share), so merely importing paywire would change
 * how the rest of the application's `fetch` calls connect. These two modules have no such effect.
 */

import type { Dispatcher } from 'undici'
import requestOnDispatcher from 'undici/lib/api/api-request.js'
import AgentClass from 'undici/lib/dispatcher/agent.js'

export const Agent = AgentClass

/** Sends one request through `dispatcher`: undici's `request(url, { dispatcher, ... })` without the main entry. */
export function requestVia(
  dispatcher: Dispatcher,
  url: string,
  options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
): Promise<Dispatcher.ResponseData> {
  const target = new URL(url)
  return requestOnDispatcher.call(dispatcher, {
    ...options,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
  })
}
