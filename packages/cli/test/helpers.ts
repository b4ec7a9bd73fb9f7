/** Spawning the real `paywire` binary (bundled from source by build-bin.ts) and talking to it. */

import { type ChildProcess, type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { CardGateway } from '@paywire/card-gateway'
import { afterEach } from 'vitest'
import { BIN } from './build-bin.js'

export const SANDBOX_PASSWORD = 'sim-password'

/** A minimal environment: no inherited secrets, colour decided by each test. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...extra }
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `paywire <args>` to completion. */
export async function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string | Buffer } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: options.env ?? baseEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const result = finished(child)
  child.stdin.end(options.input ?? '')
  return result
}

/** A spawned process's exit code and whole output, once it has closed. */
export async function finished(child: ChildProcessByStdio<Writable | null, Readable, Readable>): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const [code] = (await once(child, 'close')) as [number | null]
  return { code, stdout, stderr }
}

/** `sha1(hexdigest(inner, text))` computed by coreutils, never by the code under test. */
export function coreutilsHash(text: string, inner: 'md5' | 'sha256' = 'md5'): string {
  const script = `printf '%s' "$1" | ${inner}sum | cut -d' ' -f1 | tr -d '\\n' | sha1sum | cut -d' ' -f1`
  return execFileSync('sh', ['-c', script, 'sh', text], { encoding: 'utf8' }).trim()
}

/** A hex digest of `text` by coreutils (`md5sum`, `sha1sum`, `sha256sum`). */
export function coreutilsDigest(text: string, algorithm: 'md5' | 'sha1' | 'sha256'): string {
  return execFileSync('sh', ['-c', `printf '%s' "$1" | ${algorithm}sum | cut -d' ' -f1`, 'sh', text], {
    encoding: 'utf8',
  }).trim()
}

/** A running `paywire sim --json --port 0`: its description, its events, and a way to stop it. */
export interface SimProcess {
  readonly child: ChildProcess
  readonly description: SimDescription
  readonly base: string
  readonly events: Array<Record<string, unknown>>
  readonly stderr: () => string
  /** Resolves with the first event (present or future) that `predicate` accepts. */
  waitFor(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  // biome-ignore lint/suspicious/noExplicitAny: control answers are read ad hoc by each test
  control(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }>
}

export interface SimDescription {
  readonly card?: { checkoutUrl: string; s2sUrl: string; merchantKey: string; clientKey: string; password: string }
  readonly remittance?: { baseUrl: string; apiKey: string }
  readonly billPayment?: { baseUrl: string; clientId: string; clientSecret: string }
  readonly controlUrl: string
}

const running = new Set<ChildProcess>()

/** Starts `paywire sim --json --port 0 …args` and waits for its first line. */
export async function startSimProcess(args: readonly string[] = [], env = baseEnv()): Promise<SimProcess> {
  const child = spawn(process.execPath, [BIN, 'sim', '--json', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const events: Array<Record<string, unknown>> = []
  const waiters: Array<{
    predicate: (e: Record<string, unknown>) => boolean
    resolve: (e: Record<string, unknown>) => void
  }> = []
  const lines = createInterface({ input: child.stdout })
  const first = new Promise<SimDescription>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`paywire sim exited with ${code} before its first line: ${stderr}`)))
    lines.once('line', (line) => resolve(JSON.parse(line) as SimDescription))
  })
  const description = await first
  lines.on('line', (line) => {
    const event = JSON.parse(line) as Record<string, unknown>
    events.push(event)
    for (const waiter of [...waiters]) {
      if (waiter.predicate(event)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(event)
      }
    }
  })
  const base = description.controlUrl.replace(/\/__paywire$/, '')
  return {
    child,
    description,
    base,
    events,
    stderr: () => stderr,
    waitFor(predicate, timeoutMs = 10_000) {
      const seen = events.find(predicate)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no such event within ${timeoutMs} ms; events: ${JSON.stringify(events)}`)),
          timeoutMs,
        )
        waiters.push({
          predicate,
          resolve: (e) => {
            clearTimeout(timer)
            resolve(e)
          },
        })
      })
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      const exited = once(child, 'exit')
      child.kill(signal)
      const [code] = (await exited) as [number | null]
      return code
    },
    async control(method, path, body) {
      const response = await fetch(`${description.controlUrl}${path}`, {
        method,
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      })
      return { status: response.status, body: await response.json() }
    },
  }
}

/** Kills every sim a failed test left running. */
export function killStrays(): void {
  for (const child of running) child.kill('SIGKILL')
}

/** A loopback receiver of callbacks: answers from `answer`, keeps every body received. */
export async function startReceiver(
  answer: (request: IncomingMessage, body: string, index: number) => { status: number; body: string } | 'hang',
): Promise<{ url: string; bodies: string[]; close(): Promise<void>; server: Server }> {
  const bodies: string[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    bodies.push(body)
    const reply = answer(req, body, bodies.length - 1)
    if (reply === 'hang') return
    res.writeHead(reply.status, { 'content-type': 'text/plain' })
    res.end(reply.body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    bodies,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Whether `command` is on PATH. */
export function hasCommand(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

export const ORDER = { number: 'A-1', amount: '10.00', currency: 'USD', description: 'Shoes' }
export const PURCHASE = {
  order: ORDER,
  success_url: 'https://shop.example/ok',
  cancel_url: 'https://shop.example/cancel',
}

/** A card client for a running sim, from its `--json` description. */
export function cardClient(s: SimProcess): CardGateway {
  const c = s.description.card
  if (!c) throw new Error('no card simulator')
  return new CardGateway({ ...c, environment: 'sandbox', hashInputs: { 's2s.createSchedule': [] } })
}

/**
 * For a test file: `sim(...args)` starts a sim that is killed after each test, and `closers` take
 * anything else to close then (receivers, servers).
 */
export function useSims(): {
  sim: (...args: string[]) => Promise<SimProcess>
  closers: Array<() => Promise<void> | void>
} {
  const sims: SimProcess[] = []
  const closers: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((s) => s.stop('SIGKILL')))
    await Promise.all(closers.splice(0).map((close) => close()))
    killStrays()
  })
  return {
    closers,
    async sim(...args) {
      const started = await startSimProcess(args)
      sims.push(started)
      return started
    },
  }
}

/** Whether some line of `output` starts with `prefix`: a forged log line. */
export function hasLineStarting(output: string, prefix: string): boolean {
  return output.split('\n').some((line) => line.startsWith(prefix))
}

/** A sample card callback: its password, its fields and the text its hash covers (uppercased, password last). */
export const SAMPLE_CALLBACK = {
  password: 'cb-secret',
  fields: {
    id: 'pay-1',
    order_number: 'A-7',
    order_amount: '12.50',
    order_currency: 'EUR',
    order_description: 'Tea',
    type: 'sale',
    status: 'success',
  },
  signedText: 'PAY-1A-712.50EURTEACB-SECRET',
} as const
