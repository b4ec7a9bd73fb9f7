/** RFC 9457 ProblemDetails, as the remittance and bill payment services answer errors. */

/** `type, title, status, detail, instance`, every extension member kept, ASP.NET `errors` when present. */
export interface ProblemDetails {
  readonly type?: string
  readonly title?: string
  readonly status?: number
  readonly detail?: string
  readonly instance?: string
  /** ASP.NET validation failures: field name → messages. */
  readonly errors?: Readonly<Record<string, readonly string[]>>
  readonly [extension: string]: unknown
}

const MEMBERS: Record<string, 'string' | 'number'> = {
  type: 'string',
  title: 'string',
  status: 'number',
  detail: 'string',
  instance: 'string',
}

/**
 * Reads a ProblemDetails record from a parsed body, or `undefined` when the body is not one
 * (an HTML page from a proxy, an empty body). Members of the wrong type are dropped, as RFC 9457
 * section 3.1 asks of consumers; extension members are kept as they came.
 */
export function parseProblemDetails(body: unknown): ProblemDetails | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const record = body as Record<string, unknown>
  if (!Object.keys(MEMBERS).some((name) => name in record)) return undefined
  const problem: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(record)) {
    const expected = MEMBERS[name]
    if (expected === undefined || typeof value === expected) problem[name] = value
  }
  if ('errors' in problem && !isErrorMap(problem.errors)) delete problem.errors
  return problem as ProblemDetails
}

function isErrorMap(value: unknown): value is Record<string, string[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === 'string'))
}

/** One line for an error message: `title: detail` plus the first validation messages. */
export function describeProblem(problem: ProblemDetails): string {
  const head = [problem.title, problem.detail].filter(Boolean).join(': ')
  const fields = problem.errors
    ? Object.entries(problem.errors)
        .slice(0, 3)
        .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
        .join('; ')
    : ''
  return [head, fields].filter(Boolean).join(' — ')
}
