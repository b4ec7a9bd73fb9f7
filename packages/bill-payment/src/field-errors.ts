/**
 * Field errors of a refusal, read in the shapes validation failures come in: the service publishes
 * no error body (rule Errors), so the SDK reads the common ones (rule Platform 3) instead of one.
 */

/** Field name → messages; `(body)` holds messages that name no field. */
export type FieldErrors = Readonly<Record<string, readonly string[]>>

const BODY = '(body)'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
}

/** `#/items/0/amount` (a JSON Pointer, RFC 6901) as the SDK writes field paths: `items.0.amount`. */
function pointerPath(pointer: string): string {
  const path = pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.')
  return path === '' ? BODY : path
}

/** One entry of an error list: its field (a JSON Pointer, `name` or `field`) and its message. */
function listEntry(item: unknown): [string, string] | undefined {
  if (!isRecord(item)) return text(item) === undefined ? undefined : [BODY, item as string]
  const message = text(item.detail) ?? text(item.reason) ?? text(item.message)
  if (message === undefined) return undefined
  const pointer = text(item.pointer)
  const field = pointer === undefined ? (text(item.name) ?? text(item.field)) : pointerPath(pointer)
  return [field ?? BODY, message]
}

/**
 * The field errors of a refusal's body (rule Platform 3): an `errors` map of messages or of one
 * message per field (ASP.NET), an `errors` list of `{ pointer, detail }` (the RFC 9457 example) or
 * `{ field | name, message }`, and an `invalid-params` list of `{ name, reason }` (the RFC 7807
 * example), with or without the ProblemDetails members. Anything else contributes nothing.
 */
export function readFieldErrors(body: unknown): FieldErrors {
  if (!isRecord(body)) return {}
  // A Map, then Object.fromEntries: a field named `__proto__` becomes a member, not the prototype.
  const found = new Map<string, string[]>()
  const add = (field: string, message: string) => {
    const messages = found.get(field)
    if (messages) messages.push(message)
    else found.set(field, [message])
  }
  const { errors } = body
  if (isRecord(errors)) {
    for (const [field, value] of Object.entries(errors)) {
      const messages = Array.isArray(value) ? value : [value]
      for (const message of messages) if (text(message) !== undefined) add(field, message as string)
    }
  }
  for (const list of [errors, body['invalid-params']]) {
    if (!Array.isArray(list)) continue
    for (const item of list) {
      const entry = listEntry(item)
      if (entry) add(...entry)
    }
  }
  return Object.freeze(Object.fromEntries(Array.from(found, ([field, messages]) => [field, Object.freeze(messages)])))
}

/** The first few field errors in one line: `amount: must be greater than 0; productId: is required`. */
export function describeFieldErrors(errors: FieldErrors): string {
  return Object.entries(errors)
    .slice(0, 3)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
    .join('; ')
}
