/**
 * The endpoint checklist: every row of a package's endpoint table, checked from the table alone, so
 * a new endpoint is covered the moment its row and its simulator behaviour exist. Per row: the client
 * method is the row's; its example succeeds on the simulator with one request of the row's method and
 * path; a refused argument sends nothing; an answer lost after the service acted is retried only when
 * the row's policy allows, and otherwise reported as an unknown outcome carrying a key of the kinds
 * the row declares, with an open intent in the journal; the package's docs name the method.
 */

import { readFileSync } from 'node:fs'
import { type ClientOptions, type Intent, MemoryIntentStore, PaywireError, RequestValidationError } from '@paywire/core'
import { type AnyOperation, retryPolicyOf, rowArguments } from '@paywire/core/engine'
import type { MockServerOptions, RecordedRequest } from '@paywire/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FaultProxy, OP_HEADER, type ProxyMode, startFaultProxy } from '../reliability/support/servers.js'
import { type RowMethod, rowMethod } from './row-method.js'

/** Tables by the client property that holds their methods (`ENDPOINTS` of a package). */
export type EndpointTables = Readonly<Record<string, Readonly<Record<string, AnyOperation>>>>

/** A running simulator, as each package's testing kit starts it. */
export interface ChecklistSimulator {
  readonly url: string
  readonly server: { readonly requests: readonly RecordedRequest[] }
  close(): Promise<void>
}

/** The shape every client shares for the checklist. */
export interface ChecklistClient {
  pendingIntents(): Promise<Intent[]>
  close(): Promise<void>
}

export interface ChecklistPackage<Client extends ChecklistClient, Setup> {
  readonly name: string
  readonly endpoints: EndpointTables
  /** `EXAMPLES` of the package's testing kit: one argument list per row, made from a setup. */
  readonly examples: Readonly<Record<string, Readonly<Record<string, (setup: Setup) => unknown>>>>
  /** Starts the package's simulator; `serve` as `startMockServer` takes it (`tls`: HTTPS offering HTTP/2). */
  readonly startSimulator: (serve?: MockServerOptions) => Promise<ChecklistSimulator>
  /** A client of the simulator whose requests go to `url` (the simulator, or a proxy in front of it). */
  readonly client: (simulator: ChecklistSimulator, url: string, options?: ClientOptions) => Client
  /** The setup examples get: the client (on the simulator, or through a proxy in front of it) and the simulator. */
  readonly setup: (client: Client, simulator: ChecklistSimulator) => Setup
  /** How many side effects (charges, captures, transfers, payments…) the simulator's ledger holds. */
  readonly effects: (simulator: ChecklistSimulator) => number
  /** Docs pages that must name every method as `group.method`. */
  readonly docs: readonly string[]
  /** What a row whose retry policy is the client's choice is given: the default client's context (its rules). */
  readonly context?: unknown
}

interface Row {
  readonly group: string
  readonly method: string
  readonly row: AnyOperation
}

function rowsOf(endpoints: EndpointTables): Row[] {
  return Object.entries(endpoints).flatMap(([group, table]) =>
    Object.entries(table).map(([method, row]) => ({ group, method, row })),
  )
}

/** The path a request must have reached: the template with each `{var}` one non-empty segment. */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/?]+')
  return new RegExp(`^${escaped}(\\?.*)?$`)
}

function methodOf(client: object, { group, method }: Row): RowMethod {
  return rowMethod(client, group, method)
}

/** `args` padded to the method's arguments (`rowArguments`), then `options`. */
function withOptions(row: AnyOperation, args: readonly unknown[], options: object): unknown[] {
  const count = rowArguments(row).length
  return [...Array.from({ length: count }, (_, i) => args[i]), options]
}

/** Arguments the row's method must refuse before sending: the first one wrong for its place. */
function refusedArgs(row: AnyOperation): unknown[] {
  const places = rowArguments(row)
  const first = places[0]
  if (first === undefined) return [{ idempotencyKey: 'not a key' }]
  const wrong = first === 'body' ? undefined : first === 'query' ? new Map([['a', '1']]) : ''
  return [wrong, ...places.slice(1).map(() => undefined)]
}

async function settle(promise: Promise<unknown>): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await promise }
  } catch (error) {
    return { error }
  }
}

/** Registers the checklist of one package: a `describe` with a test per row and per check. */
export function describeEndpointChecklist<Client extends ChecklistClient, Setup>(
  pkg: ChecklistPackage<Client, Setup>,
): void {
  const rows = rowsOf(pkg.endpoints)
  /** `[group.method, row]`: the test titles name each row. */
  const named = rows.map((entry) => [`${entry.group}.${entry.method}`, entry] as const)
  const docs = pkg.docs.map((path) => readFileSync(path, 'utf8')).join('\n')

  describe(`${pkg.name}: the endpoint checklist (${rows.length} rows, from the table)`, () => {
    let simulator: ChecklistSimulator
    let direct: Client
    beforeAll(async () => {
      simulator = await pkg.startSimulator()
      direct = pkg.client(simulator, simulator.url)
    })
    afterAll(async () => {
      await direct?.close()
      await simulator?.close()
    })

    it('every row has an example, and every example a row', () => {
      const rowNames = rows.map((r) => `${r.group}.${r.method}`).sort()
      const exampleNames = Object.entries(pkg.examples)
        .flatMap(([group, table]) => Object.keys(table).map((method) => `${group}.${method}`))
        .sort()
      expect(exampleNames).toEqual(rowNames)
    })

    it.each(named)('%s: the client method is the row, named after it', (_name, entry) => {
      expect(entry.row.name).toBe(`${entry.group}.${entry.method}`)
      expect(typeof methodOf(direct, entry)).toBe('function')
    })

    it.each(named)('%s: the docs name it', (_name, { group, method }) => {
      expect(docs, `no page of ${pkg.docs.join(', ')} names ${group}.${method}`).toContain(`${group}.${method}`)
    })

    it.each(named)(
      '%s: its example succeeds on the simulator, one request of the row method and path',
      async (_name, entry) => {
        const example = pkg.examples[entry.group]?.[entry.method]
        if (example === undefined) throw new Error(`no example for ${entry.row.name}`)
        const args = (await example(pkg.setup(direct, simulator))) as unknown[]
        const before = simulator.server.requests.length
        await methodOf(direct, entry)(...args)
        const sent = simulator.server.requests.slice(before)
        expect(sent).toHaveLength(1)
        expect(sent[0]?.method).toBe(entry.row.method)
        if (typeof entry.row.path === 'string') expect(sent[0]?.url).toMatch(pathPattern(entry.row.path))
      },
    )

    it.each(named)('%s: a refused argument is named and nothing is sent', async (_name, entry) => {
      const before = simulator.server.requests.length
      const { error } = await settle(methodOf(direct, entry)(...refusedArgs(entry.row)))
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues.length).toBeGreaterThan(0)
      expect((error as RequestValidationError).message).toContain(entry.row.name)
      expect(simulator.server.requests.length).toBe(before)
    })

    describe('an answer lost after the service acted', () => {
      let proxy: FaultProxy
      const modes = new Map<string, ProxyMode[]>()
      beforeAll(async () => {
        proxy = await startFaultProxy(simulator.url, (opId, attempt) => modes.get(opId)?.[attempt - 1] ?? 'pass')
      })
      afterAll(() => proxy?.close())

      it.each(named)(
        '%s: retried only as its policy allows, else an unknown outcome with its key',
        async (_name, entry) => {
          const journal = new MemoryIntentStore()
          const client = pkg.client(simulator, proxy.url, { journal, maxRetries: 2 })
          try {
            const example = pkg.examples[entry.group]?.[entry.method]
            const args = (await example?.(pkg.setup(direct, simulator))) as unknown[]
            const opId = `${entry.row.name}-${proxy.log.length}`
            modes.set(opId, ['drop-after-forward'])
            const options = { headers: { [OP_HEADER]: opId } }
            const { error } = await settle(methodOf(client, entry)(...withOptions(entry.row, args, options)))
            const sent = proxy.log.filter((record) => record.opId === opId).length
            // A policy the client chooses (a function of its context) is read for the default client.
            const kind = retryPolicyOf(entry.row, pkg.context).kind
            if (kind === 'safe' || kind === 'keyed') {
              expect(error, `${entry.row.name} is retry-safe: the lost answer is asked again`).toBeUndefined()
              expect(sent).toBe(2)
              return
            }
            if (kind === 'window') {
              expect(sent).toBeLessThanOrEqual(2)
              if (error !== undefined) expect(error).toBeInstanceOf(PaywireError)
              return
            }
            // Not retry-safe: sent once, and the caller is told the outcome is unknown, with its key.
            expect(sent).toBe(1)
            expect(error).toBeInstanceOf(PaywireError)
            expect(error).toMatchObject({ outcomeUnknown: true, requestSent: true })
            const key = (error as PaywireError).reconciliation?.key
            expect(key, `${entry.row.name} must carry a reconciliation key`).toBeDefined()
            if (entry.row.reconcile) expect(entry.row.reconcile.keys).toContain(key)
            const open = await client.pendingIntents()
            expect(open.map((intent) => intent.operation)).toEqual([entry.row.name])
            expect(open[0]?.reconciliation?.key).toBe(key)
          } finally {
            await client.close()
          }
        },
      )
    })
  })
}
