/** `paywire callback verify`: check a callback body received (`callback send`, the other end, is in callback-send.ts). */

import { readFile } from 'node:fs/promises'
import {
  CardGateway,
  CHECKOUT_CALLBACK_FIELDS,
  explainSignature,
  type PayerCard,
  RequestValidationError,
  type SignaturePreset,
  SignatureVerificationError,
  strrevSignature,
} from '@paywire/card-gateway'
import { flag, parse, text, texts } from '../args.js'
import { diagnose } from '../diagnose.js'
import { EXIT, type ExitCode, type Io, jsonLine, printable, UsageError } from '../io.js'
import { DEFAULT_PASSWORD_ENV, readPassword } from '../secrets.js'
import { comparison, explain, inputList, payerOptions, presetChoice, RECIPE_OPTIONS, recipeChoices } from './sign.js'

/** The largest body `verify` reads: far above any callback, far below what would hurt. */
const MAX_BODY_BYTES = 1024 * 1024

/**
 * A client that only verifies: callbacks are checked with the password(s) alone, so the URLs and
 * keys are placeholders that no request ever uses.
 */
function verifier(passwords: readonly string[], signature: SignaturePreset): CardGateway {
  return new CardGateway({
    checkoutUrl: 'https://checkout.invalid',
    s2sUrl: 'https://s2s.invalid',
    merchantKey: 'unused',
    clientKey: 'unused',
    password: passwords[0] as string,
    callbackPasswords: passwords,
    signature,
    // The payer data of an S2S callback comes from the command line (verify options.payer).
    ...(signature === 'card-md5-strrev' ? { payerLookup: () => undefined } : {}),
  })
}

/**
 * The verifier, or a usage error naming the variable whose password the client refuses (blank,
 * surrounding whitespace, a control character): the user gave `--password-env NAME`, not the
 * client's `password` / `callbackPasswords[i]` options. The rule is said, the value never.
 */
function verifierFor(passwords: readonly string[], variables: readonly string[], signature: SignaturePreset) {
  try {
    return verifier(passwords, signature)
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error
    const issue = error.issues.find((i) => i.path === 'password' || /^callbackPasswords\[\d+\]$/.test(i.path))
    if (issue === undefined) throw error
    const index = issue.path === 'password' ? 0 : Number(issue.path.slice('callbackPasswords['.length, -1))
    const blank = (passwords[index] ?? '').trim() === ''
    throw new UsageError(
      `$${variables[index]} ${blank ? 'holds only whitespace, not a password' : issue.message}`,
      'callback verify',
    )
  }
}

/**
 * `paywire callback verify`. A rejected body is answered with the reason only: printing the hash it
 * should have carried would sign any body an attacker chose (a forging oracle). `--show-expected`
 * prints it, with the steps and the diagnosis, for a password read from the environment or the
 * hidden prompt (the only places paywire takes one from).
 */
export async function verify(io: Io, argv: readonly string[]): Promise<ExitCode> {
  refusePasswordArgument(argv)
  const parsed = parse(
    'callback verify',
    argv,
    {
      ...RECIPE_OPTIONS,
      // Repeatable: during a rotation, one variable per password, the one requests sign with first.
      'password-env': { type: 'string', multiple: true },
      file: { type: 'string' },
      'content-type': { type: 'string' },
      fields: { type: 'string' },
      'show-expected': { type: 'boolean' },
    },
    0,
  )
  const showExpected = flag(parsed, 'show-expected')
  const { digest, uppercase } = recipeChoices('callback verify', parsed)
  const preset = presetChoice('callback verify', parsed)
  const payer = payerOptions('callback verify', parsed)
  if (payer !== undefined && preset !== 'card-md5-strrev') {
    throw new UsageError(
      '--payer-email and the card options apply to --signature card-md5-strrev only',
      'callback verify',
    )
  }
  const fieldsOption = text(parsed, 'fields')
  const order =
    fieldsOption !== undefined ? inputList('callback verify', 'fields', fieldsOption) : CHECKOUT_CALLBACK_FIELDS
  const file = text(parsed, 'file')
  const named = texts(parsed, 'password-env')
  const variables = named.length > 0 ? named : [DEFAULT_PASSWORD_ENV]
  const twice = variables.find((name, i) => variables.indexOf(name) !== i)
  if (twice !== undefined) throw new UsageError(`--password-env ${twice} is given twice`, 'callback verify')
  const passwordEnv = variables[0] as string
  const passwords: string[] = []
  for (const variable of variables) {
    // The prompt is for one password only: a rotation names its variables.
    passwords.push(await readPassword(io, 'callback verify', variable, file === undefined || variables.length > 1))
  }
  const same = passwords.findIndex((value, i) => passwords.indexOf(value) !== i)
  if (same !== -1) {
    throw new UsageError(
      `$${variables[same]} holds the same password as $${variables[passwords.indexOf(passwords[same] as string)]}: a rotation lists different passwords`,
      'callback verify',
    )
  }
  const password = passwords[0] as string
  const gateway = verifierFor(passwords, variables, preset)
  const raw = await readBody(io, file)
  const json = flag(parsed, 'json')
  // The gateway never ends a body with a newline; echo, editors and saved files do. The body is
  // checked without it, and the answer is "not verified" either way, saying which.
  const newline = trailingNewline(raw)
  const body = newline === undefined ? raw : raw.subarray(0, raw.length - newline.length)
  const shape = body.toString('utf8').trimStart().startsWith('{') ? 'json' : 'form'
  // In a form body a trailing newline changes the last field, so the body is refused for it. In JSON
  // it is whitespace after the value that changes no field: the SDK verifies such a body as it is,
  // and so does this command, with a note (the verdict is the signature's, never the newline's).
  const jsonNewline = newline !== undefined && shape === 'json' ? newlineProblem(newline, file, true) : undefined
  const newlineNote = newline === undefined || jsonNewline ? undefined : newlineProblem(newline, file, false)

  const declared = text(parsed, 'content-type')
  if (declared !== undefined) {
    const expected = /json/i.test(declared) ? 'json' : /x-www-form-urlencoded/i.test(declared) ? 'form' : undefined
    if (expected === undefined) {
      throw new UsageError(
        `--content-type must be application/x-www-form-urlencoded or application/json, got "${declared}"`,
        'callback verify',
      )
    }
    if (expected !== shape) {
      const problem = `the body is ${shape === 'json' ? 'JSON' : 'form-encoded'} but the request said ${declared}: it was re-encoded on its way here, and the signature covers the strings as the gateway sent them. Capture the raw body before any parser.`
      if (json) io.out(jsonLine({ verified: false, reason: 'content_type_mismatch', message: problem }))
      else io.out(io.paint.red(`not verified: ${problem}`))
      return EXIT.failure
    }
  }

  try {
    const event = gateway.callbacks.verify(body, {
      fields: order,
      digest,
      uppercase,
      maxBodyBytes: MAX_BODY_BYTES,
      ...(payer ? { payer } : {}),
    })
    if (newlineNote !== undefined) {
      const message = `${newlineNote.what}; the body verifies ${newlineNote.json ? `with and without ${newlineNote.them}` : `without ${newlineNote.them}`}. ${newlineNote.fix}`
      if (json) io.out(jsonLine({ verified: false, reason: 'trailing_newline', verifiesWithoutNewline: true, message }))
      else io.out(io.paint.red(`not verified (trailing_newline): ${message}`))
      return EXIT.failure
    }
    const note = jsonNewline
      ? `${jsonNewline.what}; your server's callbacks.verify accepts the body as it is.`
      : undefined
    if (json) io.out(jsonLine({ verified: true, event, ...(note ? { note } : {}) }))
    else {
      io.out(io.paint.green('verified: the signature matches'))
      if (note) io.out(io.paint.yellow(`note: ${note}`))
      if (event.passwordIndex !== undefined) {
        io.out(
          io.paint.yellow(
            `note: verified with the password from $${variables[Number(event.passwordIndex)]}, not the first (--password-env ${passwordEnv}): the gateway still signs with it`,
          ),
        )
      }
      for (const [name, value] of Object.entries(event)) {
        if (name !== 'hash') io.out(`  ${printable(name)} = ${JSON.stringify(value)}`)
      }
    }
    return EXIT.ok
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error
    // With a newline, the reason is the newline; what the body lacks without it comes second.
    const reasons =
      newlineNote === undefined
        ? { verified: false, reason: error.reason }
        : {
            verified: false,
            reason: 'trailing_newline',
            verifiesWithoutNewline: false,
            reasonWithoutNewline: error.reason,
          }
    const what =
      newlineNote === undefined
        ? undefined
        : `${newlineNote.what}, and the body does not verify without ${newlineNote.them} either (${error.reason}). ${newlineNote.fix}`
    // With --json the newline is said in the message too, with or without --show-expected.
    const jsonNote = jsonNewline ? ` (Note: ${jsonNewline.what}; it is not the cause.)` : ''
    const message = what === undefined ? `${error.message}${jsonNote}` : `${what} ${error.message}`
    if (what !== undefined && !json) io.out(io.paint.red(`not verified (trailing_newline): ${what}`))
    if (!showExpected) {
      if (json) io.out(jsonLine({ ...reasons, message }))
      else {
        io.out(
          io.paint.red(`not verified (${error.reason}): ${printable(what === undefined ? message : error.message)}`),
        )
        io.out(
          `The expected hash is not printed. To see it and why yours differs, run again with --show-expected (password from $${passwordEnv} or the prompt).`,
        )
      }
      return EXIT.failure
    }
    const fields = Object.fromEntries(new URLSearchParams(shape === 'form' ? body.toString('utf8') : ''))
    const values = shape === 'json' ? jsonFields(body) : fields
    if (preset === 'card-md5-strrev' && values['action'] !== undefined) {
      return strrevExpected(io, json, error, values, payer, password, uppercase, { ...reasons, message })
    }
    const inputs = order.map((name) => ({ name, value: values[name] }))
    const received = values['hash']
    const explanation = explainSignature(inputs, password, digest, { uppercase })
    const findings =
      error.reason === 'hash_mismatch' && typeof received === 'string'
        ? diagnose({ inputs, password, digest, uppercase }, received)
        : undefined
    if (json) {
      io.out(
        jsonLine({
          ...reasons,
          message,
          expected: explanation.hash,
          explanation,
          findings,
        }),
      )
      return EXIT.failure
    }
    io.out(io.paint.red(`not verified (${error.reason}): ${printable(error.message)}`))
    if (error.reason === 'hash_mismatch' && typeof received === 'string') {
      explain(io, { name: 'callback', action: undefined, inputs: order }, explanation, uppercase)
      comparison(io, received, explanation.hash, findings)
    }
    return EXIT.failure
  }
}

/**
 * `--show-expected` for an S2S callback on the strrev scheme: its formula over the callback's
 * trans_id and the payer data given on the command line.
 */
function strrevExpected(
  io: Io,
  json: boolean,
  error: SignatureVerificationError,
  values: Record<string, string | undefined>,
  payer: PayerCard | undefined,
  password: string,
  uppercase: 'ascii' | 'unicode',
  reasons: Readonly<Record<string, unknown>>,
): ExitCode {
  const transId = values['trans_id']
  const x =
    payer !== undefined && transId !== undefined
      ? strrevSignature('transaction', { payer, transId }, password, uppercase)
      : undefined
  if (json) {
    // `reasons` carries the message (with the newline said, when there is one).
    io.out(jsonLine({ ...reasons, expected: x?.hash, explanation: x }))
    return EXIT.failure
  }
  io.out(io.paint.red(`not verified (${error.reason}): ${printable(error.message)}`))
  if (x === undefined) {
    io.out(
      'An S2S callback on card-md5-strrev is signed over the payer data: give --payer-email with --card-first6 and --card-last4 (or --card-token).',
    )
    return EXIT.failure
  }
  io.out(`rule          ${x.rule}`)
  io.out(`concatenated  ${printable(x.concatenation)}`)
  io.out(`uppercased    ${printable(x.uppercased)}`)
  io.out(`expected      ${x.hash}`)
  return EXIT.failure
}

/**
 * A password on the command line is refused before anything is read, naming the flag and never
 * echoing its value: argv is readable by every user of the machine (ps) and lands in shell history.
 * With `--show-expected` the refusal says so too: the expected hash is printed only for a password
 * from the environment or the prompt.
 */
function refusePasswordArgument(argv: readonly string[]): void {
  const end = argv.indexOf('--')
  const options = end === -1 ? argv : argv.slice(0, end)
  if (!options.some((arg) => arg === '--password' || arg.startsWith('--password='))) return
  const where = `set ${DEFAULT_PASSWORD_ENV} (or name another variable with --password-env; during a password rotation give --password-env once per password, the one your requests sign with first) or type it at the hidden prompt`
  const why = 'an argument is readable by every user of the machine (ps) and stays in shell history'
  throw new UsageError(
    options.includes('--show-expected')
      ? `--show-expected prints the expected hash only for a password from the environment or the prompt, never from --password: ${where}; ${why}`
      : `--password is not taken: ${where}; ${why}`,
    'callback verify',
  )
}

/** The newline(s) ending `body` (`\n`, `\r\n`, or several), or `undefined`: bytes a gateway never sends. */
function trailingNewline(body: Buffer): string | undefined {
  let end = body.length
  while (end > 0 && (body[end - 1] === 0x0a || body[end - 1] === 0x0d)) end--
  return end === body.length || !body.subarray(end).includes(0x0a) ? undefined : body.subarray(end).toString('latin1')
}

/**
 * What a trailing newline is and how to send the body without it, in words (no secret in it). In a
 * form body it lands in the last field's value; in a JSON body it is whitespace after the value and
 * changes no field, so it is never named as the cause of a mismatch there.
 */
function newlineProblem(
  newline: string,
  file: string | undefined,
  json: boolean,
): { what: string; fix: string; them: string; json: boolean } {
  const shown = printable(newline)
  const count = newline.split('\n').length - 1
  const many = count > 1
  const them = many ? 'them' : 'it'
  const fix =
    file === undefined
      ? `Send the body without ${them}: printf '%s' "$BODY" | paywire callback verify (echo adds the newline), or capture the raw request body and pass it with --file.`
      : `Send the body without ${them}: remove the last ${newline.length === 1 ? 'byte' : `${newline.length} bytes`} of the file (truncate -s -${newline.length} <file>), or save it with printf '%s' instead of echo or an editor that adds a final newline.`
  const effect = json
    ? `${many ? 'are' : 'is'} whitespace after the JSON value, which changes no field`
    : `change${many ? '' : 's'} the last field's value`
  return {
    what: `the body ends with ${many ? `${count} newlines` : 'a newline'} (${shown}), which the gateway never sends: ${many ? 'they were' : 'it was'} added on the way (echo, an editor, a saved file) and ${effect}`,
    fix,
    them,
    json,
  }
}

function jsonFields(body: Buffer): Record<string, string | undefined> {
  try {
    const value = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
  } catch {
    return {}
  }
}

async function readBody(io: Io, file: string | undefined): Promise<Buffer> {
  if (file !== undefined) {
    try {
      const body = await readFile(file)
      if (body.length > MAX_BODY_BYTES)
        throw new UsageError(`${file} is over ${MAX_BODY_BYTES} bytes: not a callback body`, 'callback verify')
      return body
    } catch (error) {
      if (error instanceof UsageError) throw error
      throw new UsageError(
        `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        'callback verify',
      )
    }
  }
  if (io.stdin.isTTY) throw new UsageError('give the raw body with --file <path> or on stdin', 'callback verify')
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of io.stdin) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES)
      throw new UsageError(`stdin is over ${MAX_BODY_BYTES} bytes: not a callback body`, 'callback verify')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}
