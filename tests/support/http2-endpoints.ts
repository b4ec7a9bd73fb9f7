/**
 * Every endpoint of a package over HTTP/2, run in a merchant process of its own (a fixture started
 * with NODE_EXTRA_CA_CERTS naming the test certificate, which Node reads at start only): the
 * package's simulator served over TLS offering `h2` and `http/1.1`, and each row's example called
 * through one client, one after another. No vitest here: this runs outside the test runner, and the
 * test reads its one JSON line (`describeEndpointsOverHttp2`).
 */

import { readFileSync } from 'node:fs'
import { AGELESS_CLOCK } from './ageless-clock.js'
import type { ChecklistClient, ChecklistPackage } from './endpoint-checklist.js'
import { rowMethod } from './row-method.js'

/** What each row's call came to, and the protocol and connection of every request the simulator received. */
export interface Http2EndpointsRun {
  readonly rows: ReadonlyArray<{ readonly name: string; readonly error?: string }>
  readonly requests: ReadonlyArray<{ readonly httpVersion: string; readonly connection: number }>
}

/** Runs every row's example over HTTP/2 and prints the run as one JSON line; `argv` names the key and certificate files. */
export async function runEveryEndpointOverHttp2<Client extends ChecklistClient, Setup>(
  pkg: ChecklistPackage<Client, Setup>,
  [keyFile = '', certFile = '']: readonly string[],
): Promise<void> {
  const simulator = await pkg.startSimulator({ tls: { key: readFileSync(keyFile), cert: readFileSync(certFile) } })
  // Whatever the machine's load, the walk stays within the client's HTTP/2 renewal age (its subject
  // is reuse; the renewal by age has a test of its own, on virtual time: http2-adversary.test.ts).
  const client = pkg.client(simulator, simulator.url, { clock: AGELESS_CLOCK })
  const rows: Array<{ name: string; error?: string }> = []
  for (const [group, table] of Object.entries(pkg.endpoints)) {
    for (const [method, row] of Object.entries(table)) {
      const name = `${group}.${method}`
      try {
        const example = pkg.examples[group]?.[method]
        if (example === undefined) throw new Error(`no example for ${row.name}`)
        const args = (await example(pkg.setup(client, simulator))) as unknown[]
        await rowMethod(client, group, method)(...args)
        rows.push({ name })
      } catch (error) {
        rows.push({ name, error: `${(error as Error).name}: ${(error as Error).message}` })
      }
    }
  }
  await client.close()
  const requests = simulator.server.requests.map(({ httpVersion, connection }) => ({ httpVersion, connection }))
  await simulator.close()
  const run: Http2EndpointsRun = { rows, requests }
  process.stdout.write(`${JSON.stringify(run)}\n`)
}
