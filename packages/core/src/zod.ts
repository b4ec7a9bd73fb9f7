/**
 * `@paywire/core/zod`: the zod functions the service packages build their field rules with, from
 * one copy of zod for all of them. Each service bundled its own copy before, so a process using two
 * services loaded and compiled zod twice; a separate entry (not the engine's bundle) keeps it off
 * the path of whatever imports core alone, and names only what the services use, so the bundle
 * stays tree-shaken (zod's main entry is 95 modules, 67 of them locales). Not for merchant code:
 * what it names may change in any minor release. A merchant's own `schema` option takes any zod.
 */

export type { core, input, output, ZodObject, ZodType } from 'zod'
export { array, boolean, custom, number, object, record, strictObject, string, union, unknown } from 'zod'
