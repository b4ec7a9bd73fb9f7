/** A table row's method on a client: `client[group][method]`, bound to its resource. No vitest here: fixtures run it outside the test runner. */

/** A row's method, as the tests call it. */
export type RowMethod = (...args: unknown[]) => Promise<unknown>

/** `client[group][method]` bound to `client[group]`; a row the client does not have fails naming it. */
export function rowMethod(client: object, group: string, method: string): RowMethod {
  const resource = (client as Record<string, Record<string, unknown>>)[group]
  const fn = resource?.[method]
  if (typeof fn !== 'function') throw new Error(`${group}.${method} is not a method of the client`)
  return (fn as RowMethod).bind(resource)
}
