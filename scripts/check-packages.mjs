#!/usr/bin/env node
/**
 * Proves the tarballs merchants install work, outside the workspace (no workspace links):
 *
 * 1. pack (through scripts/pack-all.mjs, what `pnpm pack:all` runs), the tarball contents and
 *    manifests, publint and attw;
 * 2. a merchant project in a fresh folder outside the repository, built from the tarballs: CJS
 *    require and ESM import with `instanceof` of the error classes, the main entry loading without
 *    msw and `./testing` needing it; then, with msw and zod added, every `./testing` entry loading;
 * 3. the consumer type-check matrix: a file importing every package's main and `./testing` entry,
 *    with `skipLibCheck: false` (so every shipped .d.ts, .d.ts and .d.cts, is checked), strict,
 *    exactOptionalPropertyTypes and noUncheckedIndexedAccess, under nodenext with no target (so
 *    TypeScript picks esnext, the newest lib), node16 with no target (es2022) and bundler;
 * 4. the merchant project's own config from `tsc --init` (TypeScript 5.9: module nodenext, target
 *    esnext, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess): every ```ts block of the
 *    README and the getting-started guides compiles as a module, and scripts/merchant/flow.ts
 *    compiles and runs purchase → callback → capture → credit → remittance → bill payment against
 *    the simulators the tarballs ship;
 * 5. the size budgets, and the changesets flow on a throwaway copy.
 *
 * Independent steps run concurrently (npm install alongside publint and attw, the type-check
 * matrix, the changesets copy), so the whole run fits a tight CI budget; it prints its duration.
 */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { cp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { checkRunner } from './checks.mjs'
import { guideSources, locateDiagnostics, tsBlocks, writeBlocks } from './doc-blocks.mjs'
import { PACKAGES, packAll } from './pack-all.mjs'
import { measureOwnSize, measureShippedSize } from './size.mjs'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const bin = (name) => join(root, 'node_modules', '.bin', name)

/** Runs a command; resolves with its stdout, rejects with an error carrying stdout and stderr. */
const run = (cmd, args, cwd, options = {}) =>
  new Promise((resolvePromise, reject) => {
    execFile(cmd, args, { cwd, maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      if (error) {
        error.stdout = stdout
        error.stderr = stderr
        reject(error)
      } else resolvePromise(String(stdout))
    })
  })

/**
 * Own code, minified + gzipped, in bytes: a gate against unnoticed growth. The service packages'
 * 25 KB minified target is the bench's (bench/targets.ts); the card gateway's budget sits above it
 * since the money-safety and callback hardening (its messages, hints and checks are most of it).
 */
const BUDGETS = {
  // Core grows as the service packages become tables on its engine (their shared code moves here):
  // with the engine in, remittance fell from 11.2 to 9.5 KB and bill payment from 8.0 to 5.5 KB.
  // Then the typed-answer decoders of both ProblemDetails services moved in (one copy, not two), and
  // the validation wording: 34.0 / 12.4 KB; then the intent journal, the stores and reconcileAll: 37.5 / 13.5 KB;
  // then the per-client deadline list (one timer for every attempt) and the socket cap: 39.3 / 14.2 KB;
  // then Standard Schema answers (sync and async), the per-call fast paths, undici loaded by the first
  // request within the call's deadline and signal: 41.6 / 15.1 KB; then money safety round 3: the
  // reconcile scope (settle time on the monotonic clock, foreign keys refused), the keyless advice, the
  // claim states, the single-use pool for money-moving calls and reconcile lookups with its
  // written-or-not handler, the journal write inside the call's deadline: 46.6 / 16.9 KB; then one source
  // per endpoint: resources made from rows, the client shell (ServiceClient), the one JSON body checker
  // (moved from bill payment) and the 'text' answer kind, while remittance fell 16.7 → 13.7 KB and card
  // 53.7 → 52.9 KB: 51.5 / 18.4 KB, measured over both entries (engine and merchant) as one bundle;
  // then runtimes and telemetry: the fetch transport (2.2 KB), the MD5/SHA-1/SHA-256 digests for
  // runtimes without node:crypto (3.4 KB, adapted from noble-hashes), the diagnostics channels and
  // their messages (3.1 KB), the pino-aware logger and PAYWIRE_LOG: 63.8 / 23.3 KB; then their
  // adversarial pass (every wait of a fetch attempt raced with its deadline, the word rule of telemetry,
  // logs that summarise an answer's error instead of copying it): 65.6 / 23.8 KB; then the journal's
  // record format (checks, JSON, read-back: 3.1 KB), defined once here for the Redis and PostgreSQL
  // journals instead of once in each: 68.6 / 24.6 KB; then the durable callback inbox (its store
  // interface, the memory store with its sweep and cap, the runner: records, leases, recovery, dead
  // letters): 79.7 / 28.4 KB; then bound answers (a row's answer binding, checked by the engine on
  // every 2xx, with its refusal in words): 81.5 / 29.0 KB; then the payment follower (its runner on
  // the claim store, schedule, lookup budget, attention rules, the call listener that follows every
  // payment a client starts, the journal as a source): 97.4 / 34.0 KB; then the own connector (TLS
  // sessions resumed, sockets counted until closed, the connect limit over the wait): 99.9 / 35.0 KB;
  // then the fetch fallback's warning and recovery's hand-backs before any run: 100.6 / 35.3 KB; then
  // keep-alive where the answer is bound (the kept connections lent one call at a time, the answer
  // check on a reused connection, the settle at once and its not-applied error, the subjects a socket
  // carried, hashed) and the fixes of its adversarial review: 107.2 / 37.7 KB; then each attempt's
  // own handler on undici's public handler interface (and its former methods, for a caller's own
  // dispatcher) and an answer's binding read once per request: 108.5 / 38.1 KB; then the fixes of its
  // review (raw headers read as undici reads them, one body promise, an end with no final status): 109.2 / 38.4 KB;
  // then HTTP/2 when offered (each kept socket's protocol, the single-use Agent renewed at 2 s): 109.9 / 38.5 KB;
  // then one TLS context per client and one Pool per origin for single-use calls, and the fixes of
  // its review (the context rebuilt when Node's TLS defaults change, pools renewed only after
  // HTTP/2): 111.1 / 39.0 KB; then the stores' group commit (RecordBatches, with its slow-batch
  // release and the keys in flight): 112.5 / 39.4 KB; then two batches in flight, one leaving per
  // turn, each taking its share: 112.9 / 39.6 KB; then a host name looked up once per 10 s, not
  // once per connection (addresses.ts): 114.4 / 40.2 KB; then undici's modules through `require`, the
  // `import()` behind it (undici.ts): 114.7 / 40.3 KB.
  core: { gzip: 40_400, minified: 114_700 },
  // Raised from 11.0 / 30 KB with the per-currency amount table and its messages (formatAmount),
  // then with reconcile (the lookup and the proof per operation): 34.0 / 12.1 KB, then the callback
  // inbox with its adapters and the payment-state fold: 37.4 / 13.3 KB; then the per-client signer and
  // the fast paths of the request checks: 40.8 / 14.5 KB; then `hashInputs` checked at construction:
  // 41.5 / 14.8 KB; then money safety round 3: the reconcile proofs per operation and their advice,
  // the two-decimal amount rule beside the opt-in per-currency forms, IPv4-in-IPv6 redirect targets,
  // the one-pass JSON callback reader with its depth and field limits, the inbox's claim states:
  // 53.7 / 18.8 KB (the one-source-per-endpoint work is where it shrinks). Own code only: the zod the
  // dist carries inside (about 90 KB minified) is the shipped size, printed beside it.
  // Then the signature presets (card-md5-strrev and the signer function, 6.5 KB), the payer lookup of
  // strrev callbacks and the inbox's telemetry: 61.9 / 21.6 KB; then the inbox's confirming status
  // lookup of strrev S2S callbacks and the payer data read once, guarded: 64.1 / 22.3 KB; then
  // merchant experience round 2: partial refunds (a refund's own dedupe key, the refunded total and its
  // doubts in the fold, minor-unit sums, reconcile keeping a partial refund open), callbackPasswords for
  // rotation and the trailing-newline hint: 69.5 / 24.2 KB; then the durable inbox's handler (the
  // record's allow-list and encryption, failedEvents/retry/forget, the strrev confirmation moved
  // after the answer): 72.0 / 24.8 KB; then bound answers (each lookup and money-moving row names the
  // answer field that must repeat its subject, and the unbound_response reason): 72.8 / 24.9 KB; then
  // the payment follower (`gw.payments`: the lookup by order read into ranked states, which calls
  // start or move a payment, its options) and merges: 78.8 / 27.0 KB; then merchant experience 3
  // (S2S callbacks on s2sCallbackFields, the refusal reports, body_already_parsed, the rotation order,
  // loopback return URLs): 82.6 / 28.2 KB; then the form body's fast path and the length check
  // before the byte count: 83.3 / 28.5 KB; then CAPTURE and VOID kept alive (their strict binding,
  // the applied answer, the settle at once by GET_TRANS_STATUS, the follower's own-connection
  // lookups): 84.5 / 28.9 KB; then zod from `@paywire/core/zod` (one more import specifier): 84.5 / 28.9 KB; then zod's functional
  // form (`z.optional(s)`, `s.check(z.minLength(…))`: longer to write, 137 KB less zod to load): 84.7 / 29.0 KB.
  'card-gateway': { gzip: 29_100, minified: 84_800 },
  // Reconcile advice that resends only under serviceDedupsIdempotencyKey: 16.5 / 5.1 KB; then the
  // transfer follower (the states ranked by rule Platform 3): 15.8 / 5.4 KB; then zod's functional form: 16.0 / 5.5 KB.
  remittance: { gzip: 5_600, minified: 25_000 },
  'bill-payment': { gzip: 5_000, minified: 25_000 },
  // Two stores, two Lua scripts and the JSON checks of the journal: 7.3 KB / 2.9 KB when added; then
  // claims by the caller's token with retries after a lost reply, the one-script journal open and its
  // atomic undo, orphan repair, the intent's call limit and target: 10.4 / 3.9 KB; then the durable
  // inbox's store (events in hashes, the due, dead, done and per-payment indexes, ten Lua scripts
  // timed by Redis, the former layout read during an upgrade): 18.7 / 6.0 KB; then the journal's
  // Redis clock, release with fields and wake (a payment follower's state and its early run): 19.8 / 6.25 KB;
  // then every script sent by its SHA-1, its text only after NOSCRIPT: 20.3 / 6.45 KB; then records
  // in batches (one script for the records made together, each event under pcall, the indexes'
  // types checked first, a byte cap per script): 22.0 / 7.0 KB.
  redis: { gzip: 7_100, minified: 22_200 },
  // The claims, the journal with its JSON checks, runOnce and lockPayment, migrate() and its SQL:
  // 13.2 KB / 4.7 KB when added; then the durable inbox's store over schema version 2 (ten
  // statements, the version 1 rows read during a rolling upgrade, batched prunes): 20.7 / 7.2 KB;
  // then the journal and the stores under faults (every statement on a connection of its own with a
  // deadline, destroyed past it; runOnce's server-side limits and its bounded tx; closeIn; the pool's
  // error listener and its report; the errors naming what timed out): 24.2 / 8.4 KB; then the
  // journal's server clock, release with fields and wake (a payment follower's state): 25.2 / 8.65 KB;
  // then records in batches (one statement for the records made together, each sent alone again
  // when PostgreSQL refuses the batch for what may be one event's own, a lone record as its own
  // statement, a byte cap per statement): 27.8 / 9.6 KB; then connections taken through the pool's
  // callback, listened to at once (a restart's FATAL in the chunk that hands one out): 28.1 / 9.6 KB;
  // then the record statements prepared, sent again unnamed where a pooler, a table change or a
  // wrapper refuses them: 28.7 / 9.9 KB.
  postgres: { gzip: 9_900, minified: 28_700 },
  // The channel subscribers and their attribute mapping: 5.4 KB / 1.7 KB when added; the callback
  // refusal counter: 6.7 / 2.1 KB.
  otel: { gzip: 2_300, minified: 6_900 },
}

/** What each package's smoke test constructs; `bad` makes the constructor throw RequestValidationError. */
const PROBES = {
  core: { cls: 'HttpClient', errors: ['PaywireError', 'ApiError', 'ConnectionError', 'TimeoutError'] },
  'card-gateway': {
    cls: 'CardGateway',
    errors: ['CardGatewayError'],
    bad: {
      checkoutUrl: 'http://example.com',
      s2sUrl: 'https://s2s.example.com',
      merchantKey: 'm',
      clientKey: 'c',
      password: 'p',
    },
  },
  remittance: { cls: 'Remittance', errors: ['RemittanceError'], bad: { baseUrl: 'http://example.com', apiKey: 'k' } },
  'bill-payment': {
    cls: 'BillPayment',
    errors: ['BillPaymentError'],
    bad: { baseUrl: 'http://example.com', clientId: 'i', clientSecret: 's' },
  },
  // No error class of its own (it throws core's) and no ./testing entry, which the instanceof probe,
  // the ./testing checks and the consumer matrix below still expect of every package.
  redis: { cls: 'RedisClaimStore', errors: [], bad: { client: {} } },
  postgres: { cls: 'PostgresClaimStore', errors: [], bad: { pool: {} } },
}

const only = process.env.PAYWIRE_PACKAGES?.split(',')
const names = PACKAGES.filter(
  (name) => existsSync(join(root, 'packages', name, 'src', 'index.ts')) && (!only || only.includes(name)),
)
const services = names.filter((n) => n !== 'core' && n in PROBES)
/** The packages that depend on core: a core release must bump each of them. */
const dependents = names.filter((n) => n !== 'core')
/** The CLI (a binary, no library entry): packed with the rest and checked on its own below, when all its dependencies are. */
const cliPackage = !only && existsSync(join(root, 'packages', 'cli', 'src', 'bin.ts')) ? ['cli'] : []
const pkg = (name) => `@paywire/${name}`
const { check, report, exit } = checkRunner('packaging')
async function finish() {
  await copied // never removed while it is still being written
  rmSync(work, { recursive: true, force: true })
  exit()
}

const work = mkdtempSync(join(tmpdir(), 'paywire-pack-'))
const tarballs = join(work, 'tarballs')

// The changesets flow needs only the sources: copy them now, alongside everything else.
const copy = join(work, 'repo')
const copied = cp(root, copy, {
  recursive: true,
  filter: (src) => !/[/\\](node_modules|dist|coverage|packs|\.git|\.tmp)([/\\]|$)/.test(src.slice(root.length)),
}).then(
  () => undefined,
  (error) => error,
)

console.log('pack (scripts/pack-all.mjs), publint, attw')
let tarballOf = {}
const packed = await report(
  check(`pnpm pack of ${names.length} packages into one folder`, async () => {
    const { tarballs: files, warnings } = await packAll({ destination: tarballs, names: [...names, ...cliPackage] })
    tarballOf = files
    return [...Object.values(files).map((f) => f.slice(tarballs.length + 1)), ...warnings].join(', ')
  }),
)
if (!packed) await finish()

// The merchant project: a fresh folder outside the repository. It installs the tarballs now (while
// publint and attw run), without msw first, to prove the main entries do without it.
const merchant = join(work, 'merchant')
mkdirSync(merchant)
writeFileSync(
  join(merchant, 'package.json'),
  JSON.stringify({ name: 'merchant', version: '1.0.0', private: true, type: 'module' }, null, 2),
)
const npm = (args) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], merchant)
const installed = check('npm install the four tarballs, typescript@5.9.3, @types/node@20 (no msw)', async () => {
  await npm(['install', ...names.map((n) => tarballOf[n]), 'typescript@5.9.3', '@types/node@20'])
  if (existsSync(join(merchant, 'node_modules', 'msw')))
    throw new Error('msw was installed: it must be an optional peer')
  return 'the tarballs as `pnpm pack:all` makes them'
})

const manifestOf = (name) => JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'))
/** The packages with a `./testing` entry (simulators, test servers: they need msw); @paywire/redis has none. */
const withTesting = names.filter((name) => './testing' in (manifestOf(name).exports ?? {}))
await report(
  ...names.flatMap((name) => {
    const dir = join(root, 'packages', name)
    return [
      check(`${name}: tarball contents and manifest`, async () => {
        const listing = await run('tar', ['-tzf', tarballOf[name]], dir)
        if (/package\/(src|test)\//.test(listing)) throw new Error('tarball contains src/ or test/: check "files"')
        const manifest = JSON.parse(await run('tar', ['-xzOf', tarballOf[name], 'package/package.json'], dir))
        if (JSON.stringify(manifest).includes('workspace:'))
          throw new Error('workspace: range left in the packed manifest')
        for (const field of ['description', 'keywords', 'license', 'repository', 'files', 'publishConfig', 'engines']) {
          if (!manifest[field]) throw new Error(`package.json lacks ${field}`)
        }
        for (const file of ['package/README.md', 'package/CHANGELOG.md']) {
          if (!listing.includes(file)) throw new Error(`tarball lacks ${file}`)
        }
        // The version the package is released at: the one its package.json names, never a placeholder.
        if (manifest.version !== manifestOf(name).version || /^0\.0\.0/.test(manifest.version))
          throw new Error(`packed at ${manifest.version}; package.json says ${manifestOf(name).version}`)
        return `${manifest.name}@${manifest.version}`
      }),
      check(`${name}: publint --strict`, async () =>
        (await run(bin('publint'), ['--strict'], dir)).trim().split('\n').pop(),
      ),
      // node10 resolution is not a target (engines >= 20.18.1): the profile "node16" checks node16 CJS/ESM and bundler.
      check(`${name}: attw --profile node16`, async () => {
        await run(bin('attw'), [tarballOf[name], '--profile', 'node16', '--format', 'ascii'], dir)
        return 'no problems'
      }),
    ]
  }),
)

console.log(`merchant project outside the workspace (${merchant})`)
if (!(await report(installed))) await finish()

const esm = `
import * as core from '@paywire/core'
${services.map((n, i) => `import * as s${i} from '${pkg(n)}'`).join('\n')}
${names.includes('otel') ? "import * as otel from '@paywire/otel'" : ''}
const results = []
const t = new core.TimeoutError({ operation: 'o', method: 'GET', url: 'https://x', attempts: 1, phase: 'body', timeoutMs: 1, requestSent: true })
results.push(t instanceof core.TimeoutError && t instanceof core.ConnectionError && t instanceof core.PaywireError && t instanceof Error)
${services
  .map(
    (n, i) => `
try { new s${i}.${PROBES[n].cls}(${JSON.stringify(PROBES[n].bad)}); results.push(false) }
catch (e) { results.push(e instanceof core.RequestValidationError && e instanceof core.PaywireError) }
${PROBES[n].errors.length ? `results.push(${PROBES[n].errors.map((e) => `typeof s${i}.${e} === 'function' && s${i}.${e}.prototype instanceof core.ApiError`).join(' && ')})` : ''}`,
  )
  .join('\n')}
${
  names.includes('otel')
    ? `
// @paywire/otel: its peer @opentelemetry/api came with it; no provider means the global (no-op) ones.
const instrumentation = otel.instrumentPaywire()
instrumentation.disable()
results.push(typeof otel.instrumentPaywire === 'function' && otel.OPERATION_DURATION_METRIC === 'paywire.client.operation.duration')`
    : ''
}
if (!results.every(Boolean)) { console.error(JSON.stringify(results)); process.exit(1) }
console.log(results.length + ' checks')
`
writeFileSync(join(merchant, 'esm.mjs'), esm)
writeFileSync(
  join(merchant, 'cjs.cjs'),
  esm
    .replace(/^import \* as (\w+) from '([^']+)'$/gm, "const $1 = require('$2')")
    .concat(
      "\nconst loaded = Object.keys(require.cache).filter((p) => p.includes('/msw/'))\nif (loaded.length) { console.error('msw loaded by the main entry'); process.exit(1) }\n",
    ),
)
await report(
  check('ESM import, instanceof holds', async () => (await run('node', ['esm.mjs'], merchant)).trim()),
  check('CJS require, instanceof holds, msw not loaded', async () => (await run('node', ['cjs.cjs'], merchant)).trim()),
  ...withTesting.map((name) =>
    check(`${name}: ./testing needs msw (optional peer) and says how to install it, in ESM and CJS`, async () => {
      const loaders = [
        ['--input-type=module', '-e', `await import('${pkg(name)}/testing')`],
        ['-e', `require('${pkg(name)}/testing')`],
      ]
      for (const args of loaders) {
        try {
          await run('node', args, merchant)
        } catch (error) {
          if (/testing needs msw 2.*npm install -D msw@2/.test(String(error.stderr))) continue
          throw error
        }
        throw new Error(`./testing loaded without msw installed (${args[0]})`)
      }
      return 'fails without msw, naming npm install -D msw@2'
    }),
  ),
)

// The zod the packages depend on (a merchant writing schemas installs the same major).
const zodRange = manifestOf('core').dependencies.zod
await report(
  check(`npm install msw@2 zod@${zodRange}; every ./testing entry loads (ESM and CJS)`, async () => {
    await npm(['install', 'msw@2', `zod@${zodRange}`])
    await Promise.all(
      withTesting.flatMap((name) => [
        run('node', ['--input-type=module', '-e', `await import('${pkg(name)}/testing')`], merchant),
        run('node', ['-e', `require('${pkg(name)}/testing')`], merchant),
      ]),
    )
    return `${withTesting.length} packages`
  }),
)

console.log('consumer type-check matrix: every main and ./testing entry')
const tsc = join(merchant, 'node_modules', '.bin', 'tsc')
const tsConsumer = `
import { PaywireError, RequestValidationError, type ClientOptions } from '@paywire/core'
import * as coreTesting from '@paywire/core/testing'
${services.map((n, i) => `import { ${PROBES[n].cls} as C${i}${PROBES[n].errors[0] ? `, ${PROBES[n].errors[0]} as E${i}` : ''} } from '${pkg(n)}'`).join('\n')}
${services.map((n, i) => (withTesting.includes(n) ? `import * as T${i} from '${pkg(n)}/testing'` : '')).join('\n')}
const options: ClientOptions = { timeout: 5_000, maxRetries: 1 }
export function classify(error: unknown): string {
${services.map((n, i) => (PROBES[n].errors[0] ? `  if (error instanceof E${i}) return String(error.status)` : '')).join('\n')}
  if (error instanceof RequestValidationError) return error.issues.map((i) => i.path).join(',')
  if (error instanceof PaywireError) return error.message
  return 'unknown'
}
export const clients = [${services.map((_, i) => `C${i}`).join(', ')}]
export const testing = [coreTesting, ${services.flatMap((n, i) => (withTesting.includes(n) ? [`T${i}`] : [])).join(', ')}]
export { options }
`
for (const ext of ['mts', 'cts', 'ts']) writeFileSync(join(merchant, `consumer.${ext}`), tsConsumer)
// Each run checks every .d.ts in the program (ours and our dependencies'): about 15 s of CPU each, so
// the matrix is the three resolutions, each with the strict flags a careful merchant turns on.
const strictest = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  types: ['node'],
}
const matrix = [
  // No target: under module nodenext TypeScript picks esnext (where Promise.try once clashed with a static try).
  [
    'nodenext, no target (esnext)',
    { module: 'nodenext', moduleResolution: 'nodenext' },
    ['consumer.mts', 'consumer.cts'],
  ],
  // No target: under module node16 TypeScript picks es2022, the oldest lib a Node 20 project gets by default.
  ['node16, no target (es2022)', { module: 'node16', moduleResolution: 'node16' }, ['consumer.mts', 'consumer.cts']],
  ['bundler, target es2022', { module: 'esnext', moduleResolution: 'bundler', target: 'es2022' }, ['consumer.ts']],
]
/**
 * Errors in other packages' .d.ts that no change of ours can fix, by config label: msw 2's CommonJS
 * types import the ESM-only `rettime`, which a node16 CommonJS file cannot require (TS1479). Anything
 * else fails the check, and an error in a paywire .d.ts always does.
 */
const KNOWN_THIRD_PARTY = [{ config: /^node16/, file: /^node_modules\/msw\//, code: 'TS1479' }]
await report(
  ...matrix.map(([label, compilerOptions, files], index) =>
    check(`TypeScript consumer, every entry, strictest, skipLibCheck false: ${label}`, async () => {
      const config = `tsconfig.matrix-${index}.json`
      const options = { ...compilerOptions, ...strictest }
      writeFileSync(join(merchant, config), JSON.stringify({ compilerOptions: options, files }, null, 2))
      try {
        await run(tsc, ['-p', config], merchant)
        return ''
      } catch (error) {
        const errors = String(error.stdout)
          .split('\n')
          .filter((line) => /error TS\d+/.test(line))
        const known = errors.filter((line) =>
          KNOWN_THIRD_PARTY.some((k) => k.config.test(label) && k.file.test(line) && line.includes(`error ${k.code}:`)),
        )
        if (errors.length === 0 || known.length < errors.length) throw error
        return `${known.length} known msw errors (TS1479 in msw's CommonJS types, not ours)`
      }
    }),
  ),
)

console.log("the merchant's own project: `tsc --init` config, the guides' snippets, a full flow")
// The guides and the flow use all four packages: with PAYWIRE_PACKAGES naming fewer, this part is skipped.
const everyPackage =
  names.length === PACKAGES.filter((n) => existsSync(join(root, 'packages', n, 'src', 'index.ts'))).length
if (!everyPackage) console.log(`  skipped: PAYWIRE_PACKAGES=${only} leaves out some of the packages they use`)
// The merchant's code lives in app/, with the config `npx tsc --init` writes (TypeScript 5.9:
// module nodenext, target esnext, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess on);
// the only choices passed are the ones its comments ask a Node project to make.
const app = join(merchant, 'app')
mkdirSync(app)
copyFileSync(join(root, 'scripts', 'merchant', 'flow.ts'), join(app, 'flow.ts'))
const initialised =
  everyPackage &&
  (await report(
    check('npx tsc --init (types node, outDir dist)', async () => {
      await run('npx', ['--no', '--', 'tsc', '--init', '--types', 'node', '--outDir', 'dist'], app)
      const shown = JSON.parse(await run(tsc, ['-p', 'tsconfig.json', '--showConfig'], app)).compilerOptions
      const expected = {
        module: 'nodenext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      }
      const wrong = Object.entries(expected).filter(([option, value]) => shown[option] !== value)
      if (wrong.length) throw new Error(`tsc --init no longer gives ${JSON.stringify(Object.fromEntries(wrong))}`)
      return `module ${shown.module}, target ${shown.target}, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess`
    }),
  ))
if (initialised) {
  const snippets = join(merchant, 'snippets')
  mkdirSync(snippets)
  const blocks = tsBlocks(root, guideSources(root))
  copyFileSync(join(root, 'scripts', 'doc-snippets', 'globals.d.ts'), join(snippets, 'globals.d.ts'))
  writeFileSync(
    join(snippets, 'tsconfig.json'),
    JSON.stringify({
      extends: '../app/tsconfig.json',
      compilerOptions: { noEmit: true },
      files: ['globals.d.ts', ...writeBlocks(snippets, blocks)],
    }),
  )
  const sources = [...new Set(blocks.map((b) => b.source))]
  await report(
    check(`every \`\`\`ts block of ${sources.join(', ')} compiles in the merchant project`, async () => {
      try {
        await run(tsc, ['-p', 'tsconfig.json'], snippets)
      } catch (error) {
        error.stdout = locateDiagnostics(error.stdout, blocks)
        error.message = 'guide snippets do not compile in the merchant project (errors name the Markdown line)'
        throw error
      }
      return `${blocks.length} blocks`
    }),
    check('tsc -p app (scripts/merchant/flow.ts)', () => run(tsc, ['-p', 'tsconfig.json'], app)),
  )
  // tsc emits even when it reports errors: the flow still runs, so one run shows both kinds of failure.
  let transcript = ''
  await report(
    check('node dist/flow.js: card, remittance and bill payment against the shipped simulators', async () => {
      if (!existsSync(join(app, 'dist', 'flow.js'))) throw new Error('tsc emitted no dist/flow.js')
      transcript = await run('node', ['dist/flow.js'], app, { timeout: 60_000 })
      return `${transcript.split('\n').filter((line) => line.includes(' ok ')).length} steps`
    }),
  )
  if (transcript) console.log(transcript.trimEnd().replace(/^/gm, '     '))
}

if (cliPackage.length) {
  console.log('the paywire binary, installed from its tarball with the others (npx paywire)')
  const user = join(work, 'cli-user')
  mkdirSync(user)
  writeFileSync(
    join(user, 'package.json'),
    JSON.stringify({ name: 'cli-user', version: '1.0.0', private: true }, null, 2),
  )
  const paywire = join(user, 'node_modules', '.bin', 'paywire')
  const installedCli = await report(
    check('npm install -D the @paywire/cli tarball alone (it carries the SDK code it runs)', async () => {
      await run('npm', ['install', '-D', tarballOf.cli, '--no-audit', '--no-fund', '--loglevel=error'], user)
      const installed = readdirSync(join(user, 'node_modules', '@paywire'))
      if (installed.join() !== 'cli') throw new Error(`the CLI pulled in @paywire/${installed.join(', @paywire/')}`)
      return 'node_modules/.bin/paywire, no other @paywire package'
    }),
    check('cli: publint --strict', async () =>
      (await run(bin('publint'), ['--strict'], join(root, 'packages', 'cli'))).trim().split('\n').pop(),
    ),
  )
  if (installedCli) {
    await report(
      check('paywire --help: exit 0; startup, median of 15 runs, against an empty Node script', async () => {
        const median = async (args) => {
          const times = []
          for (let i = 0; i < 15; i++) {
            const at = performance.now()
            await run(process.execPath, args, user)
            times.push(performance.now() - at)
          }
          return times.sort((a, b) => a - b)[7]
        }
        writeFileSync(join(user, 'empty.mjs'), '')
        const help = await median([realpathSync(paywire), '--help'])
        const empty = await median(['empty.mjs'])
        return `${help.toFixed(0)} ms (empty Node script ${empty.toFixed(0)} ms)`
      }),
      check('paywire sign: the hash coreutils computes', async () => {
        const out = await run(paywire, ['sign', 'GET_TRANS_STATUS', '--field', 'trans_id=abc'], user, {
          env: { PATH: process.env.PATH, PAYWIRE_CARD_PASSWORD: 'sim-password' },
        })
        const expected = await run(
          'sh',
          ['-c', "printf 'ABCSIM-PASSWORD' | md5sum | cut -d' ' -f1 | tr -d '\\n' | sha1sum | cut -d' ' -f1"],
          user,
        )
        if (out.trim() !== expected.trim())
          throw new Error(`paywire sign printed ${out.trim()}, coreutils ${expected.trim()}`)
        return out.trim()
      }),
      check('paywire sim --json --port 0: serves, answers the control API, stops on SIGINT with exit 0', async () => {
        const child = spawn(paywire, ['sim', '--json', '--port', '0'], { cwd: user, stdio: ['ignore', 'pipe', 'pipe'] })
        let stderr = ''
        child.stderr.on('data', (chunk) => {
          stderr += chunk
        })
        const [line] = await once(createInterface({ input: child.stdout }), 'line')
        const description = JSON.parse(line)
        const answer = await (await fetch(`${description.controlUrl}/clock`)).json()
        if (typeof answer.date !== 'string') throw new Error(`control API answered ${JSON.stringify(answer)}`)
        child.kill('SIGINT')
        const [code] = await once(child, 'exit')
        if (code !== 0) throw new Error(`exit ${code}: ${stderr}`)
        return `card at ${description.card.checkoutUrl}`
      }),
    )
  }
}

console.log('size budgets (own code, deps external)')
await report(
  ...names.map((name) =>
    check(`${name}: size`, () => {
      const size = measureOwnSize(join(root, 'packages', name))
      const budget = BUDGETS[name]
      const shipped = measureShippedSize(join(root, 'packages', name))
      const line = `${size.minified} B minified, ${size.gzip} B min+gz; budget ${budget.minified} / ${budget.gzip}; shipped with bundled zod ${shipped.minified} / ${shipped.gzip}`
      if (size.gzip > budget.gzip || size.minified > budget.minified) throw new Error(`over budget: ${line}`)
      return line
    }),
  ),
)

console.log('changesets flow on a throwaway copy')
await report(
  check('changeset version writes versions and CHANGELOG entries; dependents follow core', async () => {
    const copyError = await copied
    if (copyError) throw copyError
    for (const file of readdirSync(join(copy, '.changeset'))) {
      if (file.endsWith('.md') && file !== 'README.md') rmSync(join(copy, '.changeset', file))
    }
    writeFileSync(join(copy, '.changeset', 'ci-core-fix.md'), "---\n'@paywire/core': patch\n---\n\nA core fix.\n")
    const version = (name) => JSON.parse(readFileSync(join(copy, 'packages', name, 'package.json'))).version
    const before = Object.fromEntries(names.map((n) => [n, version(n)]))
    await run('node', [join(root, 'node_modules', '@changesets', 'cli', 'bin.js'), 'version'], copy)
    const bumped = names.filter((n) => version(n) !== before[n])
    if (!bumped.includes('core')) throw new Error('core was not bumped')
    const missing = dependents.filter((n) => !bumped.includes(n))
    if (missing.length) throw new Error(`dependents not bumped with core: ${missing.join(', ')}`)
    const changelog = readFileSync(join(copy, 'packages', 'core', 'CHANGELOG.md'), 'utf8')
    if (!changelog.includes('A core fix.')) throw new Error('core CHANGELOG has no entry')
    return bumped.map((n) => `${n} ${before[n]} -> ${version(n)}`).join(', ')
  }),
)

await finish()
