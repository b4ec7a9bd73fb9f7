#!/usr/bin/env node
/**
 * The services' published types name no engine type. A merchant hovering `gw.s2s.capture` or
 * reading a service package's `.d.ts` sees plain signatures (`capture(params: S2sCaptureParams,
 * options?: OperationOptions): ApiPromise<S2sActionResult>`), never the engine the SDK is built on:
 * its entry `@paywire/core/engine` may change in any minor release, and its types (`Operation`,
 * `ResourceClass`, a service's row context) say how a method is made, not what it takes.
 *
 * Reads the built `.d.ts` files of each service (run after `pnpm build`) and fails on any import
 * from `@paywire/core/engine`, `@paywire/core/zod` or zod (a params type is written out, never a schema's type: a
 * merchant's type check then does not depend on the zod version the SDK bundles), or any name below.
 *
 * Run: node scripts/check-public-types.mjs
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const SERVICES = ['card-gateway', 'remittance', 'bill-payment']
/**
 * The engine's names: every name `@paywire/core/engine` exports that `@paywire/core` does not (read
 * from core's api.md, which CI holds to the sources), and each service's context of its rows.
 */
function engineNames() {
  const report = readFileSync(join(root, 'packages', 'core', 'api.md'), 'utf8')
  const section = (entry) => {
    const start = report.indexOf(`## \`${entry}\``)
    const end = report.indexOf('\n## ', start + 1)
    const text = report.slice(start, end === -1 ? undefined : end)
    return new Set([...text.matchAll(/^- (\w+) \(/gm)].map((match) => match[1]))
  }
  const main = section('@paywire/core')
  const engine = [...section('@paywire/core/engine')].filter((name) => !main.has(name))
  if (engine.length < 20) throw new Error('packages/core/api.md: the engine entry lists too few names to check against')
  return [...engine, 'GatewayContext', 'RemittanceRules', 'AnyOperation']
}
const ENGINE_NAMES = engineNames()
/** Every way a declaration file reaches another module: import/export from, import(), require, a types reference. */
const FORBIDDEN_MODULE =
  /(?:from\s*|import\s*\(\s*|require\s*\(\s*|<reference\s+types\s*=\s*)['"](@paywire\/core\/(?:engine|zod)|zod)(?:\/[^'"]*)?['"]/
const NAMES = new RegExp(`(?<![\\w$.'"])(${ENGINE_NAMES.join('|')})(?![\\w$'"])`)

function declarationFiles(dir) {
  const found = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...declarationFiles(path))
    else if (/\.d\.c?ts$/.test(name)) found.push(path)
  }
  return found
}

let problems = 0
let checked = 0
for (const service of SERVICES) {
  const dist = join(root, 'packages', service, 'dist')
  if (!existsSync(dist)) {
    console.error(`${service}: no dist/ (run pnpm build first)`)
    problems++
    continue
  }
  // The testing entry (simulators) is for tests, not a merchant's runtime: its own types may name more.
  for (const file of declarationFiles(dist).filter((path) => !path.includes(`${join(dist, 'testing')}`))) {
    checked++
    const text = readFileSync(file, 'utf8')
    const lines = text.split('\n')
    lines.forEach((line, index) => {
      const at = `${relative(root, file)}:${index + 1}`
      if (FORBIDDEN_MODULE.test(line)) {
        console.error(`${at}: reaches the engine entry or zod: ${line.trim().slice(0, 160)}`)
        problems++
        return
      }
      // Prose (a JSDoc line) may name anything; code may not.
      if (/^\s*(\/\*\*|\*)/.test(line)) return
      const name = NAMES.exec(line)?.[1]
      if (name) {
        console.error(`${at}: names the engine type ${name}: ${line.trim().slice(0, 160)}`)
        problems++
      }
    })
  }
}

if (problems > 0) {
  console.error(`${problems} engine type reference(s) in the services' published types`)
  process.exit(1)
}
console.log(`public types: ${checked} declaration files of ${SERVICES.length} services name no engine type`)
