/** `paywire sim`: the three simulators behind one local server until Ctrl-C. */

import { SIGNATURE_PRESETS } from '@paywire/card-gateway'
import { MAX_ANSWER_BYTES } from '../answer.js'
import { flag, oneOf, parse, text, texts, wholeNumber } from '../args.js'
import { displayUrl, EXIT, type ExitCode, endpointUrl, type Io, jsonLine, printable, UsageError } from '../io.js'
import { readPassword } from '../secrets.js'
import type { Delivery, DeliveryAttempt } from '../sim/deliveries.js'
import { type RequestLogEntry, startSim } from '../sim/server.js'
import { SERVICE_WORDS, type ServiceName } from '../sim/services.js'

const DEFAULT_PORT = 4010

export async function sim(io: Io, argv: readonly string[]): Promise<ExitCode> {
  const command = 'sim'
  const parsed = parse(
    command,
    argv,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      services: { type: 'string' },
      seed: { type: 'string' },
      signature: { type: 'string' },
      'callback-url': { type: 'string' },
      'callback-timeout': { type: 'string' },
      json: { type: 'boolean' },
      lenient: { type: 'boolean' },
      's2s-callbacks': { type: 'boolean' },
      // Repeatable: a password rotation, the older password first; the last one is in force.
      'password-env': { type: 'string', multiple: true },
    },
    0,
  )
  const port = wholeNumber(command, 'port', text(parsed, 'port') ?? String(DEFAULT_PORT), 0, 65_535)
  const host = text(parsed, 'host') ?? '127.0.0.1'
  if (host.trim() === '')
    throw new UsageError(
      '--host needs an address, e.g. 127.0.0.1 (an empty one would listen on every interface)',
      command,
    )
  const services = serviceSet(text(parsed, 'services'))
  const callbackUrl = text(parsed, 'callback-url')
  const callbackTarget = callbackUrl === undefined ? undefined : endpointUrl(command, 'callback-url', callbackUrl)
  if (callbackTarget && !services.has('card'))
    throw new UsageError('--callback-url needs the card simulator (--services card)', command)
  const callbackTimeoutMs = wholeNumber(
    command,
    'callback-timeout',
    text(parsed, 'callback-timeout') ?? '10000',
    1,
    600_000,
  )
  const signature = oneOf(command, 'signature', text(parsed, 'signature') ?? 'seed', SIGNATURE_PRESETS)
  if (text(parsed, 'signature') !== undefined && !services.has('card'))
    throw new UsageError('--signature needs the card simulator (--services card)', command)
  const passwords = await simPasswords(io, texts(parsed, 'password-env'))
  if (passwords.length > 0 && !services.has('card'))
    throw new UsageError('--password-env needs the card simulator (--services card)', command)
  const json = flag(parsed, 'json')
  const { bold, dim, green, red } = io.paint

  const onRequest = (e: RequestLogEntry) => {
    if (json) io.out(jsonLine({ event: 'request', ...e }))
    else {
      const status = e.status >= 200 && e.status < 400 ? green(String(e.status)) : red(String(e.status))
      io.out(
        `${dim(e.time.slice(11, 23))} ${e.service.padEnd(11)} ${e.method.padEnd(6)} ${e.path} ${bold(e.operation)} ${status} ${e.ms} ms`,
      )
    }
  }
  const onDelivery = (d: Delivery, a: DeliveryAttempt) => {
    if (json) {
      io.out(
        jsonLine({
          event: 'callback',
          id: d.id,
          url: displayUrl(new URL(d.url)),
          type: d.type,
          status: d.status,
          order_number: d.orderNumber,
          attempt: d.attempts.length,
          answer: a,
          state: d.state,
          nextAttemptAt: d.nextAttemptAt,
        }),
      )
      return
    }
    const cut = a.cut ? ` (answer cut at ${MAX_ANSWER_BYTES} bytes)` : ''
    const answer = a.status !== undefined ? `${a.status} ${JSON.stringify(a.body ?? '')}${cut}` : a.error
    const paint = d.state === 'delivered' ? green : red
    const next = d.state === 'retrying' ? `, next attempt ${d.nextAttemptAt}` : d.state === 'failed' ? ', given up' : ''
    io.out(
      `${dim(a.at.slice(11, 23))} callback    → ${displayUrl(new URL(d.url))} ${bold(printable(`${d.type}/${d.status}`))} order ${printable(d.orderNumber)} attempt ${d.attempts.length}: ${paint(printable(answer ?? ''))} ${a.ms} ms${next}`,
    )
  }

  // Listening for Ctrl-C and SIGTERM starts before the server does: a signal sent as soon as the
  // first line is read must find the handler, not Node's default (death without cleanup).
  let stop = () => {}
  const stopped = new Promise<void>((resolve) => {
    stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  let running: Awaited<ReturnType<typeof startSim>>
  try {
    running = await startSim({
      port,
      host,
      services,
      seed: text(parsed, 'seed'),
      signature,
      lenient: flag(parsed, 'lenient'),
      s2sCallbacks: flag(parsed, 's2s-callbacks'),
      passwords,
      callbackUrl: callbackTarget?.href,
      callbackTimeoutMs,
      onRequest,
      onDelivery,
    })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    io.err(
      `paywire sim: cannot listen on ${host}:${port}: ${code === 'EADDRINUSE' ? 'the port is in use (choose another with --port, or --port 0)' : (code ?? String(error))}`,
    )
    stop()
    return EXIT.failure
  }

  if (json) {
    io.out(jsonLine(running.description))
    if (!isLoopback(host)) io.err(exposedWarning(host))
  } else banner(io, running.description, host, callbackTarget)

  await stopped
  await running.close()
  if (!json) io.err('paywire sim: stopped')
  return EXIT.ok
}

/**
 * The card passwords of a rotation rehearsal, from the variables `--password-env` names (older
 * first): never from an argument, which other users of the machine can read in `ps`.
 */
async function simPasswords(io: Io, variables: readonly string[]): Promise<{ env: string; value: string }[]> {
  const twice = variables.find((name, i) => variables.indexOf(name) !== i)
  if (twice !== undefined) throw new UsageError(`--password-env ${twice} is given twice`, 'sim')
  const out: { env: string; value: string }[] = []
  for (const env of variables) {
    // No prompt: the simulator's stdin is not for typing passwords.
    const value = await readPassword(io, 'sim', env, true)
    const same = out.find((p) => p.value === value)
    if (same !== undefined)
      throw new UsageError(
        `$${env} holds the same password as $${same.env}: a rotation lists different passwords`,
        'sim',
      )
    out.push({ env, value })
  }
  return out
}

function serviceSet(value: string | undefined): Set<ServiceName> {
  if (value === undefined) return new Set(['card', 'remittance', 'billPayment'])
  const set = new Set<ServiceName>()
  for (const word of value.split(',').map((w) => w.trim())) {
    const name = SERVICE_WORDS[word]
    if (!name) {
      throw new UsageError(
        `--services takes card, remittance (remit) and bill-payment (bill), separated by commas; got "${word}"`,
        'sim',
      )
    }
    set.add(name)
  }
  return set
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

function exposedWarning(host: string): string {
  return `warning: listening on ${host}: anyone who reaches it can drive the simulators with the public sandbox credentials`
}

function banner(io: Io, d: Record<string, unknown>, host: string, callbackUrl: URL | undefined): void {
  const { bold, yellow } = io.paint
  const card = d['card'] as Record<string, string> | undefined
  const remittance = d['remittance'] as Record<string, string> | undefined
  const bill = d['billPayment'] as Record<string, string> | undefined
  io.out(bold('paywire sim: local simulators (sandbox credentials below are public; state is in memory)'))
  if (card) {
    io.out(`  card gateway   checkoutUrl = s2sUrl = ${card['checkoutUrl']}`)
    // A password from the environment is named, never printed (the --json line carries it, for the client).
    const password = card['passwordEnv'] !== undefined ? `from $${card['passwordEnv']}` : card['password']
    io.out(`                 merchantKey ${card['merchantKey']}  clientKey ${card['clientKey']}  password ${password}`)
    if (card['passwordEnv'] !== undefined) {
      io.out(
        `                 rotation ${(card['passwordEnvs'] as unknown as string[]).join(' → ')}: switch with POST /__paywire/card/password {"env": "NAME"}`,
      )
    }
    io.out(`                 test card 4111111111111111, expiry 01/2038 success, 02/2038 decline, 05/2038 3DS`)
    if (card['signature'] !== 'seed') {
      io.out(
        `                 signature ${card['signature']}: S2S actions and S2S callbacks use it (purchases must name customer.email); Checkout keeps the seed formula`,
      )
    }
  }
  if (remittance) io.out(`  remittance     baseUrl ${remittance['baseUrl']}  apiKey ${remittance['apiKey']}`)
  if (bill)
    io.out(
      `  bill payment   baseUrl ${bill['baseUrl']}  clientId ${bill['clientId']}  clientSecret ${bill['clientSecret']}`,
    )
  io.out(`  control API    ${d['controlUrl']}`)
  if (callbackUrl) io.out(`  callbacks      → ${displayUrl(callbackUrl)}`)
  if (!isLoopback(host)) io.err(yellow(exposedWarning(host)))
  io.out('Ctrl-C stops it.')
}
