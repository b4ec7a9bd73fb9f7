/** `paywire sim`: the three simulators behind one local server until Ctrl-C. */

import { flag, parse, text, wholeNumber } from '../args.js'
import { EXIT, type ExitCode, type Io, jsonLine, UsageError } from '../io.js'
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
      'callback-url': { type: 'string' },
      'callback-timeout': { type: 'string' },
      json: { type: 'boolean' },
    },
    0,
  )
  const port = wholeNumber(command, 'port', text(parsed, 'port') ?? String(DEFAULT_PORT), 0, 65_535)
  const host = text(parsed, 'host') ?? '127.0.0.1'
  const services = serviceSet(text(parsed, 'services'))
  const callbackUrl = text(parsed, 'callback-url')
  if (callbackUrl !== undefined) checkCallbackUrl(callbackUrl, services)
  const callbackTimeoutMs = wholeNumber(
    command,
    'callback-timeout',
    text(parsed, 'callback-timeout') ?? '10000',
    1,
    600_000,
  )
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
          url: d.url,
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
    const answer = a.status !== undefined ? `${a.status} ${JSON.stringify(a.body ?? '')}` : a.error
    const paint = d.state === 'delivered' ? green : red
    const next = d.state === 'retrying' ? `, next attempt ${d.nextAttemptAt}` : d.state === 'failed' ? ', given up' : ''
    io.out(
      `${dim(a.at.slice(11, 23))} callback    → ${d.url} ${bold(`${d.type}/${d.status}`)} order ${d.orderNumber} attempt ${d.attempts.length}: ${paint(answer ?? '')} ${a.ms} ms${next}`,
    )
  }

  let running: Awaited<ReturnType<typeof startSim>>
  try {
    running = await startSim({
      port,
      host,
      services,
      seed: text(parsed, 'seed'),
      callbackUrl,
      callbackTimeoutMs,
      onRequest,
      onDelivery,
    })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    io.err(
      `paywire sim: cannot listen on ${host}:${port}: ${code === 'EADDRINUSE' ? 'the port is in use (choose another with --port, or --port 0)' : (code ?? String(error))}`,
    )
    return EXIT.failure
  }

  if (json) io.out(jsonLine(running.description))
  else banner(io, running.description, host, callbackUrl)

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  await running.close()
  if (!json) io.err('paywire sim: stopped')
  return EXIT.ok
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

function checkCallbackUrl(url: string, services: ReadonlySet<ServiceName>): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new UsageError(`--callback-url must be an absolute http(s) URL, got "${url}"`, 'sim')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--callback-url must be an http or https URL, got "${url}"`, 'sim')
  }
  if (!services.has('card')) throw new UsageError('--callback-url needs the card simulator (--services card)', 'sim')
}

function banner(io: Io, d: Record<string, unknown>, host: string, callbackUrl: string | undefined): void {
  const { bold, yellow } = io.paint
  const card = d['card'] as Record<string, string> | undefined
  const remittance = d['remittance'] as Record<string, string> | undefined
  const bill = d['billPayment'] as Record<string, string> | undefined
  io.out(bold('paywire sim: local simulators (sandbox credentials below are public; state is in memory)'))
  if (card) {
    io.out(`  card gateway   checkoutUrl = s2sUrl = ${card['checkoutUrl']}`)
    io.out(
      `                 merchantKey ${card['merchantKey']}  clientKey ${card['clientKey']}  password ${card['password']}`,
    )
    io.out(`                 test card 4111111111111111, expiry 01/2038 success, 02/2038 decline, 05/2038 3DS`)
  }
  if (remittance) io.out(`  remittance     baseUrl ${remittance['baseUrl']}  apiKey ${remittance['apiKey']}`)
  if (bill)
    io.out(
      `  bill payment   baseUrl ${bill['baseUrl']}  clientId ${bill['clientId']}  clientSecret ${bill['clientSecret']}`,
    )
  io.out(`  control API    ${d['controlUrl']}`)
  if (callbackUrl) io.out(`  callbacks      → ${callbackUrl}`)
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    io.out(
      yellow(
        `  warning: listening on ${host}: anyone who reaches it can drive the simulators with the public credentials`,
      ),
    )
  }
  io.out('Ctrl-C stops it.')
}
