/** `paywire callback send`: signs a test card callback and POSTs it to the merchant's endpoint. */

import { randomUUID } from 'node:crypto'
import { CHECKOUT_CALLBACK_FIELDS, explainSignature } from '@paywire/card-gateway'
import { MAX_ANSWER_BYTES, readCappedAnswer } from '../answer.js'
import { fieldPairs, flag, parse, text, texts, wholeNumber } from '../args.js'
import {
  displayUrl,
  EXIT,
  type ExitCode,
  endpointUrl,
  type Io,
  jsonLine,
  networkFailure,
  printable,
  UsageError,
} from '../io.js'
import { DEFAULT_PASSWORD_ENV, readPassword } from '../secrets.js'
import { RECIPE_OPTIONS, recipeChoices } from './sign.js'

/**
 * `paywire callback send`. The body is signed over the checkout callback fields with the password
 * from the environment or the prompt; the answer is read up to a cap, and a non-2xx is a failure.
 */
export async function send(io: Io, argv: readonly string[]): Promise<ExitCode> {
  const command = 'callback send'
  const parsed = parse(
    command,
    argv,
    {
      'password-env': RECIPE_OPTIONS['password-env'],
      digest: RECIPE_OPTIONS.digest,
      json: RECIPE_OPTIONS.json,
      url: { type: 'string' },
      type: { type: 'string' },
      status: { type: 'string' },
      order: { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      description: { type: 'string' },
      id: { type: 'string' },
      field: { type: 'string', multiple: true },
      timeout: { type: 'string' },
    },
    0,
  )
  const url = text(parsed, 'url')
  if (url === undefined) throw new UsageError('--url is required: the endpoint that receives the callback', command)
  const target = endpointUrl(command, 'url', url)
  const shown = displayUrl(target)
  const { digest } = recipeChoices(command, parsed)
  const timeout = wholeNumber(command, 'timeout', text(parsed, 'timeout') ?? '10000', 1, 600_000)
  // A map, so any field name (even __proto__) is sent as given.
  const fields = new Map<string, string>(
    Object.entries({
      id: text(parsed, 'id') ?? randomUUID(),
      order_number: text(parsed, 'order') ?? `paywire-${Date.now()}`,
      order_amount: text(parsed, 'amount') ?? '10.00',
      order_currency: text(parsed, 'currency') ?? 'USD',
      order_description: text(parsed, 'description') ?? 'paywire test callback',
      type: text(parsed, 'type') ?? 'sale',
      status: text(parsed, 'status') ?? 'success',
    }),
  )
  for (const [name, value] of fieldPairs(command, texts(parsed, 'field'))) {
    if (name === 'hash') throw new UsageError('--field hash=… is not taken: the hash is computed', command)
    fields.set(name, value)
  }
  for (const name of CHECKOUT_CALLBACK_FIELDS) {
    if (fields.get(name) === '') throw new UsageError(`${name} is signed and must not be empty`, command)
  }
  const password = await readPassword(io, command, text(parsed, 'password-env') ?? DEFAULT_PASSWORD_ENV)
  const { hash } = explainSignature(
    CHECKOUT_CALLBACK_FIELDS.map((name) => ({ name, value: fields.get(name) })),
    password,
    digest,
  )
  const body = new URLSearchParams([...fields, ['hash', hash]]).toString()
  const sent = Object.fromEntries(fields)

  const started = performance.now()
  let answer: { status: number; body: string; cut: boolean }
  // Our own abort closes the connection once MAX_ANSWER_BYTES are read; the time-out covers the rest.
  const cutter = new AbortController()
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([cutter.signal, AbortSignal.timeout(timeout)]),
    })
    answer = await readCappedAnswer(response, cutter, MAX_ANSWER_BYTES)
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeout} ms` : networkFailure(error)
    if (flag(parsed, 'json')) io.out(jsonLine({ delivered: false, url: shown, fields: sent, error: reason }))
    else io.out(io.paint.red(`not delivered to ${shown}: ${printable(reason)}`))
    return EXIT.failure
  }
  const ms = Math.round(performance.now() - started)
  const ok = answer.status >= 200 && answer.status < 300
  if (flag(parsed, 'json')) {
    io.out(
      jsonLine({
        delivered: ok,
        url: shown,
        fields: sent,
        status: answer.status,
        body: answer.body,
        bodyCut: answer.cut,
        ms,
      }),
    )
  } else {
    const paint = ok ? io.paint.green : io.paint.red
    io.out(
      `POST ${shown} ${printable(`${fields.get('type')}/${fields.get('status')}`)} order ${printable(fields.get('order_number') ?? '')}`,
    )
    io.out(paint(`→ ${answer.status} ${JSON.stringify(answer.body.slice(0, 200))} in ${ms} ms`))
    if (answer.cut) {
      io.out(
        io.paint.yellow(
          `note: answer cut at ${MAX_ANSWER_BYTES} bytes (the rest was not read; the connection was closed)`,
        ),
      )
    }
    if (ok && answer.body.trim() !== 'OK') io.out(io.paint.yellow('note: the platform expects the plain body OK'))
    if (!ok) io.out('A non-2xx answer makes the gateway send the callback again.')
  }
  return ok ? EXIT.ok : EXIT.failure
}
