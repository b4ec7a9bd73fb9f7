/** `paywire sign`: computes, explains or checks a card request signature. */

import {
  CHECKOUT_CALLBACK_FIELDS,
  explainSignature,
  type PayerCard,
  SIGNATURE_PRESETS,
  SIGNED_OPERATIONS,
  type SignatureExplanation,
  type SignaturePreset,
  type StrrevExplanation,
  type StrrevFormula,
  strrevFormulaOf,
  strrevSignature,
} from '@paywire/card-gateway'
import { fieldPairs, flag, oneOf, parse, text, texts } from '../args.js'
import { diagnose, type Finding } from '../diagnose.js'
import { EXIT, type ExitCode, type Io, jsonLine, printable, UsageError } from '../io.js'
import { DEFAULT_PASSWORD_ENV, readPassword } from '../secrets.js'

/** Options shared by `sign` and `callback verify`: how the signature is built. */
export const RECIPE_OPTIONS = {
  'password-env': { type: 'string' },
  digest: { type: 'string' },
  uppercase: { type: 'string' },
  signature: { type: 'string' },
  'payer-email': { type: 'string' },
  'card-first6': { type: 'string' },
  'card-last4': { type: 'string' },
  'card-token': { type: 'string' },
  json: { type: 'boolean' },
} as const

/** The operation `paywire sign` signs: its SDK name, S2S action and hash inputs. */
export interface SignTarget {
  readonly name: string
  readonly action: string | undefined
  readonly inputs: readonly string[] | null
}

/** `callback` is the Checkout callback signature; every other name is a `SIGNED_OPERATIONS` row. */
export function findOperation(ref: string): SignTarget | undefined {
  if (ref === 'callback') return { name: 'callback', action: undefined, inputs: CHECKOUT_CALLBACK_FIELDS }
  for (const [name, row] of Object.entries(SIGNED_OPERATIONS)) {
    if (name === ref || row.action === ref.toUpperCase()) return { name, action: row.action, inputs: row.inputs }
  }
  return undefined
}

function operationList(): string {
  const actions = Object.values(SIGNED_OPERATIONS).flatMap((row) => (row.action ? [row.action] : []))
  return [...actions, ...Object.keys(SIGNED_OPERATIONS), 'callback'].join(', ')
}

/** The `--digest` and `--uppercase` choices, checked. */
export function recipeChoices(command: string, parsed: ReturnType<typeof parse>) {
  return {
    digest: oneOf(command, 'digest', text(parsed, 'digest') ?? 'md5', ['md5', 'sha256'] as const),
    uppercase: oneOf(command, 'uppercase', text(parsed, 'uppercase') ?? 'ascii', ['ascii', 'unicode'] as const),
  }
}

/** `--signature`: a preset name, checked (default `seed`). */
export function presetChoice(command: string, parsed: ReturnType<typeof parse>): SignaturePreset {
  return oneOf(command, 'signature', text(parsed, 'signature') ?? 'seed', SIGNATURE_PRESETS)
}

/**
 * The payer data of `--payer-email`, `--card-first6`/`--card-last4` or `--card-token` (what the
 * strrev scheme hashes and never sends), or `undefined` when none is given. Only 6 + 4 digits.
 */
export function payerOptions(command: string, parsed: ReturnType<typeof parse>): PayerCard | undefined {
  const email = text(parsed, 'payer-email')
  const first6 = text(parsed, 'card-first6')
  const last4 = text(parsed, 'card-last4')
  const token = text(parsed, 'card-token')
  if (email === undefined && first6 === undefined && last4 === undefined && token === undefined) return undefined
  if (email === undefined || email === '')
    throw new UsageError('--payer-email is required with the card options', command)
  if (token !== undefined) {
    if (first6 !== undefined || last4 !== undefined)
      throw new UsageError('give --card-token or --card-first6 with --card-last4, not both', command)
    if (token === '') throw new UsageError('--card-token must not be empty', command)
    return { email, cardToken: token }
  }
  if (first6 === undefined || !/^\d{6}$/.test(first6))
    throw new UsageError('--card-first6 takes the card number’s first 6 digits (or give --card-token)', command)
  if (last4 === undefined || !/^\d{4}$/.test(last4))
    throw new UsageError('--card-last4 takes the card number’s last 4 digits (or give --card-token)', command)
  return { email, cardFirst6: first6, cardLast4: last4 }
}

/** The strrev formula `paywire sign` applies to `target` on `preset`, or `undefined` for the seed formula. */
function strrevFormula(preset: SignaturePreset, target: SignTarget): StrrevFormula | undefined {
  return preset === 'card-md5-strrev' && target.action !== undefined ? strrevFormulaOf(target.action) : undefined
}

/** `--inputs a,b,c`: names in order, none empty. */
export function inputList(command: string, option: string, value: string): string[] {
  const names = value.split(',').map((name) => name.trim())
  if (names.some((name) => name === '')) {
    throw new UsageError(`--${option} takes field names separated by commas, got "${value}"`, command)
  }
  return names
}

export async function sign(io: Io, argv: readonly string[]): Promise<ExitCode> {
  const parsed = parse(
    'sign',
    argv,
    {
      ...RECIPE_OPTIONS,
      field: { type: 'string', multiple: true },
      inputs: { type: 'string' },
      explain: { type: 'boolean' },
      compare: { type: 'string' },
    },
    1,
  )
  const ref = parsed.positionals[0]
  if (ref === undefined) throw new UsageError(`name the operation to sign: one of ${operationList()}`, 'sign')
  const target = findOperation(ref)
  if (!target) throw new UsageError(`no card operation "${ref}": one of ${operationList()}`, 'sign')
  const { digest, uppercase } = recipeChoices('sign', parsed)
  const preset = presetChoice('sign', parsed)
  const payer = payerOptions('sign', parsed)
  const formula = strrevFormula(preset, target)
  if (preset === 'card-md5-strrev' && target.action !== undefined && formula === undefined) {
    throw new UsageError(
      `the card-md5-strrev scheme publishes no signature for ${target.action}: the SDK refuses to send it on that preset (look the payment up by trans_id with GET_TRANS_STATUS)`,
      'sign',
    )
  }
  if (formula !== undefined) return signStrrev(io, parsed, target, formula, payer, { digest, uppercase })
  const override = text(parsed, 'inputs')
  const inputs = override !== undefined ? inputList('sign', 'inputs', override) : target.inputs
  if (inputs === null) {
    throw new UsageError(
      `the hash inputs of ${target.name} are not published: name the fields your gateway signs, in order, with --inputs name,name (ask its support)`,
      'sign',
    )
  }
  const fields = new Map<string, string>()
  for (const [name, value] of fieldPairs('sign', texts(parsed, 'field'))) {
    if (fields.has(name)) throw new UsageError(`--field ${name} is given twice`, 'sign')
    fields.set(name, value)
  }
  const absent = inputs.filter((name) => !fields.has(name))
  // Checkout status signs payment_id or order_id, whichever is sent.
  const oneOfTwo = target.name === 'checkout.status' && override === undefined
  if (oneOfTwo ? absent.length === inputs.length : absent.length > 0) {
    const list = (oneOfTwo ? inputs : absent).map((name) => `--field ${name}=…`).join(oneOfTwo ? ' or ' : ' ')
    throw new UsageError(`${target.name} signs ${inputs.join(', ')}: give ${list}`, 'sign')
  }
  for (const name of fields.keys()) {
    if (!inputs.includes(name))
      io.err(`note: ${name} is not a hash input of ${target.name}; it does not change the hash`)
  }
  const compared = comparedHash(parsed)
  const password = await readPassword(io, 'sign', text(parsed, 'password-env') ?? DEFAULT_PASSWORD_ENV)
  const named = inputs.filter((name) => fields.has(name)).map((name) => ({ name, value: fields.get(name) }))
  const explanation = explainSignature(named, password, digest, { uppercase })
  const findings =
    compared === undefined || compared === explanation.hash
      ? undefined
      : diagnose({ inputs: named, password, digest, uppercase }, compared)
  const match = compared === undefined ? undefined : findings === undefined
  const matchesPreset =
    match === false
      ? otherPreset(preset, target, fields, payer, password, { digest, uppercase }, compared ?? '')
      : undefined

  if (flag(parsed, 'json')) {
    io.out(
      jsonLine({
        operation: target.name,
        action: target.action,
        signature: preset,
        uppercase,
        ...explanation,
        compared,
        match,
        findings,
        matchesPreset,
      }),
    )
  } else if (flag(parsed, 'explain') || compared !== undefined) {
    if (flag(parsed, 'explain')) explain(io, target, explanation, uppercase)
    if (compared !== undefined) comparison(io, compared, explanation.hash, findings)
    if (matchesPreset !== undefined) presetHint(io, matchesPreset)
  } else {
    io.out(explanation.hash)
  }
  return match === false ? EXIT.failure : EXIT.ok
}

interface Recipe {
  readonly digest: 'md5' | 'sha256'
  readonly uppercase: 'ascii' | 'unicode'
}

/** `paywire sign` on the strrev scheme: its formula over the trans_id / schedule_id and the payer data. */
async function signStrrev(
  io: Io,
  parsed: ReturnType<typeof parse>,
  target: SignTarget,
  formula: StrrevFormula,
  payer: PayerCard | undefined,
  recipe: Recipe,
): Promise<ExitCode> {
  const fields = new Map<string, string>()
  for (const [name, value] of fieldPairs('sign', texts(parsed, 'field'))) {
    if (fields.has(name)) throw new UsageError(`--field ${name} is given twice`, 'sign')
    fields.set(name, value)
  }
  const needs = formula === 'transaction' ? 'trans_id' : formula === 'schedule' ? 'schedule_id' : undefined
  if (needs !== undefined && !fields.has(needs)) {
    throw new UsageError(`${target.name} on card-md5-strrev signs ${needs}: give --field ${needs}=…`, 'sign')
  }
  if ((formula === 'transaction' || formula === 'payment') && payer === undefined) {
    throw new UsageError(
      `${target.name} on card-md5-strrev signs the payer email and card digits of the original payment: give --payer-email with --card-first6 and --card-last4 (or --card-token)`,
      'sign',
    )
  }
  if (text(parsed, 'inputs') !== undefined) {
    throw new UsageError('--inputs does not apply on card-md5-strrev: the scheme fixes what each action hashes', 'sign')
  }
  if (text(parsed, 'digest') !== undefined) {
    throw new UsageError('--digest does not apply on card-md5-strrev S2S actions: the scheme is plain md5', 'sign')
  }
  const compared = comparedHash(parsed)
  const password = await readPassword(io, 'sign', text(parsed, 'password-env') ?? DEFAULT_PASSWORD_ENV)
  const x = strrevSignatureOf(formula, fields, payer, password, recipe.uppercase)
  const match = compared === undefined ? undefined : compared.toLowerCase() === x.hash
  const matchesPreset =
    match === false
      ? otherPreset('card-md5-strrev', target, fields, payer, password, recipe, compared as string)
      : undefined
  if (flag(parsed, 'json')) {
    io.out(
      jsonLine({
        operation: target.name,
        action: target.action,
        signature: 'card-md5-strrev',
        uppercase: recipe.uppercase,
        ...x,
        compared,
        match,
        matchesPreset,
      }),
    )
  } else if (flag(parsed, 'explain') || compared !== undefined) {
    if (flag(parsed, 'explain')) explainStrrev(io, target, x, recipe.uppercase)
    if (compared !== undefined) {
      const { green, red } = io.paint
      if (match) io.out(green(`match: ${shownHash(compared)} is the right hash`))
      else {
        io.out(red(`mismatch: ${shownHash(compared)} is not the right hash ${x.hash}`))
        if (matchesPreset !== undefined) presetHint(io, matchesPreset)
        else
          io.out(
            'Check the password (sandbox and production differ), the payer email and card digits of the original payment, and the trans_id.',
          )
      }
    }
  } else io.out(x.hash)
  return match === false ? EXIT.failure : EXIT.ok
}

/** The strrev formula over the `trans_id` / `schedule_id` given as fields and the payer data. */
function strrevSignatureOf(
  formula: StrrevFormula,
  fields: ReadonlyMap<string, string>,
  payer: PayerCard | undefined,
  password: string,
  uppercase: Recipe['uppercase'],
): StrrevExplanation {
  const transId = fields.get('trans_id')
  const scheduleId = fields.get('schedule_id')
  const refs = {
    ...(payer ? { payer } : {}),
    ...(transId !== undefined ? { transId } : {}),
    ...(scheduleId !== undefined ? { scheduleId } : {}),
  }
  return strrevSignature(formula, refs, password, uppercase)
}

/**
 * The preset other than `chosen` whose hash of the same operation and values is `compared`, when one
 * is: a brand on another scheme is the likeliest cause of "Hash is not valid" across every call.
 */
function otherPreset(
  chosen: SignaturePreset,
  target: SignTarget,
  fields: ReadonlyMap<string, string>,
  payer: PayerCard | undefined,
  password: string,
  recipe: Recipe,
  compared: string,
): SignaturePreset | undefined {
  const wanted = compared.trim().toLowerCase()
  for (const preset of SIGNATURE_PRESETS) {
    if (preset === chosen) continue
    const formula = strrevFormula(preset, target)
    if (formula === undefined) {
      if (target.inputs === null) continue
      const named = target.inputs.map((name) => ({ name, value: fields.get(name) }))
      for (const digest of [recipe.digest, recipe.digest === 'md5' ? 'sha256' : 'md5'] as const) {
        if (explainSignature(named, password, digest, { uppercase: recipe.uppercase }).hash === wanted) return preset
      }
      continue
    }
    if ((formula === 'transaction' || formula === 'payment') && payer === undefined) continue
    const hash = strrevSignatureOf(formula, fields, payer, password, recipe.uppercase).hash
    if (hash === wanted) return preset
  }
  return undefined
}

function presetHint(io: Io, preset: SignaturePreset): void {
  io.out(
    io.paint.yellow(
      `this hash matches preset ${preset}: your gateway signs with that scheme (client option signature: '${preset}', here --signature ${preset})`,
    ),
  )
}

/** The steps of a strrev signature, password masked. */
function explainStrrev(io: Io, target: SignTarget, x: StrrevExplanation, uppercase: string): void {
  const { bold } = io.paint
  io.out(`${bold('operation')}     ${target.name}${target.action ? ` (action ${target.action})` : ''}`)
  io.out(`${bold('signature')}     card-md5-strrev (${x.formula})`)
  io.out(`${bold('rule')}          ${x.rule}, UTF-8, lowercase hex; uppercase ${uppercase}; strrev by characters`)
  io.out(`${bold('concatenated')}  ${printable(x.concatenation)}`)
  io.out(`${bold('uppercased')}    ${printable(x.uppercased)}`)
  io.out(`${bold('hash')}          ${x.hash}`)
}

/** The steps of a signature, password masked. */
export function explain(io: Io, target: SignTarget, x: SignatureExplanation, uppercase: string): void {
  const { bold, dim } = io.paint
  io.out(`${bold('operation')}     ${target.name}${target.action ? ` (action ${target.action})` : ''}`)
  io.out(
    `${bold('rule')}          sha1(${x.digest}(UPPER(inputs… + password))), UTF-8, lowercase hex; uppercase ${uppercase}`,
  )
  io.out(`${bold('inputs')}`)
  x.inputs.forEach((input, i) => {
    io.out(
      `  ${i + 1}. ${input.name} = ${input.value === undefined ? dim('(absent: adds nothing)') : JSON.stringify(input.value)}`,
    )
  })
  io.out(`  ${x.inputs.length + 1}. password ${dim('(masked)')}`)
  io.out(`${bold('concatenated')}  ${printable(x.concatenation)}`)
  io.out(`${bold('uppercased')}    ${printable(x.uppercased)}`)
  io.out(`${bold(`${x.digest} (hex)`)}${' '.repeat(Math.max(1, 8 - x.digest.length))}${x.innerHex}`)
  io.out(`${bold('hash')}          ${x.hash}`)
}

/** Match or mismatch, and the mistakes that would produce the compared hash. */
export function comparison(io: Io, compared: string, expected: string, findings: readonly Finding[] | undefined): void {
  const { green, red } = io.paint
  if (findings === undefined) {
    io.out(green(`match: ${shownHash(compared)} is the right hash`))
    return
  }
  io.out(red(`mismatch: ${shownHash(compared)} is not the right hash ${expected}`))
  if (findings.length === 0) {
    io.out('No common mistake produces it. Check the password (sandbox and production differ), that every')
    io.out("value is the exact string sent on the wire, and the account's digest (md5 or sha256).")
    return
  }
  io.out('It is produced by:')
  for (const finding of findings) {
    io.out(`  - ${finding.mistakes.length > 0 ? finding.mistakes.join('; ') : 'the rule itself'}`)
  }
}

/**
 * `--compare`, its surrounding whitespace (a shell capture's newline) dropped once, here: what is
 * shown, compared and diagnosed is then the same string. Nothing left (an unset variable, a capture
 * of nothing) is a usage error, never a "mismatch" against an invisible value.
 */
function comparedHash(parsed: Parameters<typeof text>[0]): string | undefined {
  const compared = text(parsed, 'compare')?.trim()
  if (compared === '') {
    throw new UsageError('--compare is empty: give the hash to compare (the hash field as received)', 'sign')
  }
  return compared
}

/**
 * A compared hash as it was compared: quoted, control characters escaped, when it carries anything
 * but its hex digits, so a value with a newline never looks equal to the expected one.
 */
export function shownHash(hash: string): string {
  return /^[0-9a-fA-F]*$/.test(hash) ? hash : printable(JSON.stringify(hash))
}
