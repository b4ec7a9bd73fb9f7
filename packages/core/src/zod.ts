/**
 * `@paywire/core/zod`: the zod functions the service packages build their field rules with, from
 * one copy of zod for all of them. Each service bundled its own copy before, so a process using two
 * services loaded and compiled zod twice; a separate entry (not the engine's bundle) keeps it off
 * the path of whatever imports core alone, and names only what the services use, so the bundle
 * stays tree-shaken. Not for merchant code: what it names may change in any minor release. A
 * merchant's own `schema` option takes any zod.
 *
 * It is zod's functional form ("zod mini": `z.optional(s)`, `s.check(z.minLength(1))`), not its
 * method-chaining form: a classic zod schema carries every method of its kind, so its bundle holds
 * all of them (192 KB, with JSON Schema output nothing here uses) and each schema built attaches
 * them. With the functional form the bundle holds only the checks named below, and a cold process
 * reaches its first answer about 9 ms sooner (bench/README.md "Cold start"). The rules and their
 * messages are zod's same checks; the parse of an object is not compiled to a function, which
 * costs about 0.4 µs per call and no compile on the first one.
 */

export type { core, input, output, ZodMiniObject, ZodMiniType } from 'zod/mini'
export {
  array,
  boolean,
  catchall,
  custom,
  int,
  maxLength,
  minLength,
  nonnegative,
  number,
  object,
  optional,
  positive,
  record,
  refine,
  regex,
  strictObject,
  string,
  superRefine,
  union,
  unknown,
} from 'zod/mini'
