/** `paywire sign`: computes, explains or checks a card request signature. */

import {
  CHECKOUT_CALLBACK_FIELDS,
  explainSignature,
  SIGNED_OPERATIONS,
  type SignatureExplanation,
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
  const password = await readPassword(io, 'sign', text(parsed, 'password-env') ?? DEFAULT_PASSWORD_ENV)
  const named = inputs.filter((name) => fields.has(name)).map((name) => ({ name, value: fields.get(name) }))
  const explanation = explainSignature(named, password, digest, { uppercase })
  const compared = text(parsed, 'compare')
  const findings =
    compared === undefined || compared.trim() === explanation.hash
      ? undefined
      : diagnose({ inputs: named, password, digest, uppercase }, compared)
  const match = compared === undefined ? undefined : findings === undefined

  if (flag(parsed, 'json')) {
    io.out(
      jsonLine({ operation: target.name, action: target.action, uppercase, ...explanation, compared, match, findings }),
    )
  } else if (flag(parsed, 'explain') || compared !== undefined) {
    if (flag(parsed, 'explain')) explain(io, target, explanation, uppercase)
    if (compared !== undefined) comparison(io, compared, explanation.hash, findings)
  } else {
    io.out(explanation.hash)
  }
  return match === false ? EXIT.failure : EXIT.ok
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
    io.out(green(`match: ${compared.trim()} is the right hash`))
    return
  }
  io.out(red(`mismatch: ${compared.trim()} is not the right hash ${expected}`))
  if (findings.length === 0) {
    io.out('No common mistake produces it. Check the password (sandbox and production differ), that every')
    io.out("value is the exact string sent on the wire, and the account's digest (md5 or sha256).")
    return
  }
  io.out('It is produced by:')
  for (const finding of findings) io.out(`  - ${finding.mistakes.join('; ')}`)
}
