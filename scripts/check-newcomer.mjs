#!/usr/bin/env node
/**
 * Does what a newcomer does from the README, in a fresh temporary folder, with the tarballs
 * `pnpm pack:all` makes standing in for the registry (a sibling of check-packages.mjs, packing
 * through the same scripts/pack-all.mjs):
 *
 * - README: `npm init -y` and `npm pkg set type=module` as the README writes them, then the README's
 *   install lines of "Using a local build" as written (only `P=` points at the tarballs): the
 *   libraries land in `dependencies`, the CLI and msw in `devDependencies`; the README's ESM snippet
 *   runs as `index.js` against `npx paywire sim`, its CommonJS form as `index.cjs`, and the ESM
 *   snippet fails in a CommonJS folder as the README says it does;
 * - issue 30 through the installed tarballs, one check per item, each failure naming its contract
 *   (the contracts are the ones the merchant relies on):
 *   (1) `npx paywire callback verify` on a signed body saved with a trailing newline (`\n`, `\r\n`):
 *       exit 1 and the word `newline`; `--json` says `"reason": "trailing_newline"`; the same body
 *       without it verifies (exit 0);
 *   (2) `npx paywire sim --port 0 --json` is strict: a raw Checkout session with `"10.0"` EUR, with a
 *       numeric amount, with an `http://localhost` success_url is refused (400, 100000,
 *       `Request data is invalid.`, an `errors[]` entry starting with the field name), and
 *       `--lenient` accepts the three;
 *   (3) a fault queued through the control API with `{"service":"card","action":"CAPTURE"}` fails the
 *       next CAPTURE and not a GET_TRANS_STATUS before it; `{"operation":"s2s.getTransStatus"}` the
 *       next status lookup; an unknown action is refused (400) naming the known ones;
 *   (9) with the installed `tsc`: `err.reason === 'no_such_reason'` on a `SignatureVerificationError`
 *       is a type error on exactly that line, and an exhaustive switch over `SignatureErrorReason`
 *       (its members read from the installed .d.ts) compiles.
 *
 * - issue 40: a Hono merchant built from the tarballs under strict NodeNext (`skipLibCheck: false`,
 *   scripts/newcomer-hono.mjs) against `npx paywire sim --s2s-callbacks` with two `--password-env`:
 *   an S2S capture callback confirmed by lookup, `500 body_already_parsed`, a visible `400
 *   hash_mismatch`, then the rotation and purchase → hosted page → 303 back → verified callback; the
 *   CLI tarball installs alone (the README's lines); and last, a rebuilt core tarball (other
 *   contents, pack-all's hashed name) that `npm install` picks up and `npm ci` keeps (it replaces
 *   the core tarball in the packs folder).
 *
 * Independent steps run concurrently (the merchant install beside the type-check project's, the
 * three simulators, the CLI runs); it prints its duration (budget: 60 s).
 *
 * Run: pnpm build && node scripts/check-newcomer.mjs [--packs <folder with the tarballs>] [--keep]
 * (--packs reuses tarballs `pnpm pack:all` already wrote; --keep leaves the temporary folder.)
 */
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { checkRunner } from './checks.mjs'
import { honoMerchant } from './newcomer-hono.mjs'
import { PACKAGES, packAll } from './pack-all.mjs'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const argv = process.argv.slice(2)
const packsArg = argv.includes('--packs') ? argv[argv.indexOf('--packs') + 1] : undefined
const keep = argv.includes('--keep')

// ─── Running things ──────────────────────────────────────────────────────────────────────────────

/** npm reads the cache first (the README's lines stay as written; this only saves round trips). */
const quietNpm = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' }

/** Runs a command; resolves `{ code, stdout, stderr }` whatever the exit code (checks judge it). */
function run(cmd, args, cwd, { env = {}, input, timeout = 60_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      cmd,
      args,
      { cwd, env: { ...process.env, ...quietNpm, ...env }, timeout, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(Object.assign(error, { stdout, stderr }))
        else resolvePromise({ code: error ? error.code : 0, stdout: String(stdout), stderr: String(stderr) })
      },
    )
    if (input !== undefined) child.stdin.end(input)
  })
}

/** Like `run`, but a non-zero exit rejects with the command's output. */
async function must(cmd, args, cwd, options) {
  const result = await run(cmd, args, cwd, options)
  if (result.code !== 0) {
    throw Object.assign(new Error(`\`${[cmd, ...args].join(' ')}\` exited ${result.code}`), result)
  }
  return result
}

const { check, report, exit } = checkRunner('newcomer')

const work = mkdtempSync(join(tmpdir(), 'paywire-newcomer-'))
const sims = []
async function finish() {
  for (const sim of sims) sim.stop()
  await Promise.all(sims.map((sim) => sim.exited))
  if (keep) console.log(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
  exit()
}

/** Fails the check: `contract` says which promise was broken, `detail` what was seen instead. */
const broken = (contract, detail) => new Error(`${contract}: ${detail}`)

// ─── The README ──────────────────────────────────────────────────────────────────────────────────

const readme = readFileSync(join(root, 'README.md'), 'utf8')
/** The fenced blocks of one `## ` section of the README: `{ lang, code }`. */
function blocksOf(heading) {
  const start = readme.indexOf(`\n## ${heading}\n`)
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`)
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1], code: m[2] }))
}
const usingBlocks = blocksOf('Using a package')
const localBlocks = blocksOf('Using a local build')
/** Shell lines without their comments and blanks. */
const shellLines = (code) =>
  code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))

// ─── Pack ────────────────────────────────────────────────────────────────────────────────────────

console.log('the tarballs (scripts/pack-all.mjs)')
let packs = packsArg ? resolve(packsArg) : join(work, 'packs')
const packed = await report(
  check(packsArg ? `tarballs in ${packs}` : 'pnpm pack of every package', async () => {
    if (!packsArg) {
      const { warnings } = await packAll({ destination: packs })
      for (const warning of warnings) console.warn(`  warning: ${warning}`)
    }
    const files = readdirSync(packs).filter((f) => /^paywire-.*\.tgz$/.test(f))
    const missing = PACKAGES.filter((name) => !files.some((f) => f.startsWith(`paywire-${name}-`)))
    if (missing.length) throw new Error(`no tarball for ${missing.join(', ')} in ${packs}`)
    return `${files.length} tarballs`
  }),
)
if (!packed) await finish()
packs = resolve(packs)
const tarball = (name) => {
  const file = readdirSync(packs).find((f) => new RegExp(`^paywire-${name}-\\d.*\\.tgz$`).test(f))
  return join(packs, file)
}

// ─── Install: the newcomer's project, and a type-check project beside it ─────────────────────────

const project = join(work, 'shop')
mkdirSync(project)
const typesProject = join(work, 'types')
mkdirSync(typesProject)

console.log(`a newcomer's project, from the README (${project})`)
const installed = check("npm init -y, then the README's install lines as written", async () => {
  // "Using a package": the project set-up line(s) (`npm init -y && npm pkg set type=module`).
  const setup = usingBlocks
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => shellLines(b.code))
    .filter((line) => line.startsWith('npm init'))
  if (setup.length === 0) throw broken('README "Using a package"', 'no `npm init` line')
  // "Using a local build": the lines run in your project, after the `# in your project` comment.
  const local = localBlocks.find((b) => b.lang === 'sh')
  if (!local) throw broken('README "Using a local build"', 'no sh block')
  const afterComment = local.code.slice(local.code.search(/^# in your project/m))
  const lines = shellLines(afterComment).map((line) => (line.startsWith('P=') ? `P=${packs}` : line))
  if (!lines.some((line) => line.startsWith('npm install')))
    throw broken('README "Using a local build"', 'no npm install line after "# in your project"')
  await must('sh', ['-ec', [...setup, ...lines].join('\n')], project, { timeout: 120_000 })
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
  const deps = Object.keys(manifest.dependencies ?? {})
  const devDeps = Object.keys(manifest.devDependencies ?? {})
  for (const name of ['core', 'card-gateway']) {
    if (!deps.includes(`@paywire/${name}`)) throw broken('README item 8', `@paywire/${name} is not in dependencies`)
  }
  // The CLI tarball installs alone: it brings no other @paywire package (issue 40, item 7).
  const ours = readdirSync(join(project, 'node_modules', '@paywire')).sort()
  if (ours.join() !== 'card-gateway,cli,core')
    throw broken('README "Using a local build"', `node_modules/@paywire holds ${ours.join(', ')}`)
  for (const name of ['@paywire/cli', 'msw']) {
    if (deps.includes(name)) throw broken('README item 8', `${name} is in production dependencies (show -D)`)
    if (!devDeps.includes(name)) throw broken('README item 8', `${name} is not in devDependencies`)
  }
  if (manifest.type !== 'module') throw broken('README item 8', `package.json "type" is ${manifest.type}, not module`)
  return `${setup.length + lines.length} lines; dependencies ${deps.join(', ')}; devDependencies ${devDeps.join(', ')}`
})
const typesInstalled = check('type-check project: core and card-gateway tarballs, typescript@5.9.3', async () => {
  writeFileSync(join(typesProject, 'package.json'), JSON.stringify({ name: 'types', private: true, type: 'module' }))
  await must(
    'npm',
    ['install', tarball('core'), tarball('card-gateway'), 'typescript@5.9.3', '@types/node@20', '--loglevel=error'],
    typesProject,
    { timeout: 120_000 },
  )
  return 'node_modules/.bin/tsc'
})
if (!(await report(installed))) {
  await report(typesInstalled)
  await finish()
}

// ─── Simulators (default, strict; and --lenient) ─────────────────────────────────────────────────

/** `npx paywire sim --port 0 --json ...extra` in the project: `{ description, stop, exited }`. */
async function startSim(extra, env = {}) {
  const child = spawn('npx', ['--no', 'paywire', 'sim', '--port', '0', '--json', ...extra], {
    cwd: project,
    env: { ...process.env, ...quietNpm, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npx and the server it starts stop together
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = once(child, 'exit').then(([code]) => code)
  const first = once(createInterface({ input: child.stdout }), 'line').then(([line]) => line)
  const line = await Promise.race([first, exited.then((code) => ({ code }))])
  if (typeof line !== 'string') {
    throw Object.assign(new Error(`\`paywire sim ${extra.join(' ')}\` exited ${line.code} before serving`), { stderr })
  }
  child.stdout.resume()
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGINT')
    } catch {}
    // A server that ignores SIGINT is killed, so the check never hangs on it.
    setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }, 5000).unref()
  }
  const sim = { description: JSON.parse(line), stop, exited }
  sims.push(sim)
  return sim
}

const strictSim = startSim([])
const lenientSim = startSim(['--lenient'])
const faultSim = startSim([])
// A refusal to start is reported by the checks that need the simulator.
for (const sim of [strictSim, lenientSim, faultSim]) sim.catch(() => undefined)

// ─── Signing, as the gateway does (SHA1 of the hex MD5 of the uppercased concatenation) ──────────

const sha1md5 = (...parts) => {
  const md5 = createHash('md5').update(parts.join('').toUpperCase()).digest('hex')
  return createHash('sha1').update(md5).digest('hex')
}
let orderCounter = 0
const orderNumber = () => `newcomer-${process.pid}-${Date.now()}-${++orderCounter}`

/** A raw Checkout session request, signed with the simulator's credentials. */
function sessionBody(card, order, urls = {}) {
  return {
    merchant_key: card.merchantKey,
    operation: 'purchase',
    methods: ['card'],
    order,
    cancel_url: urls.cancel_url ?? 'https://shop.example/cancel',
    success_url: urls.success_url ?? 'https://shop.example/ok',
    hash: sha1md5(order.number, String(order.amount), order.currency, order.description, card.password),
  }
}
async function post(url, { json, form }) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json !== undefined ? JSON.stringify(json) : new URLSearchParams(form).toString(),
  })
  const text = await response.text()
  let body
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: response.status, body }
}
const show = (answer) => `HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 400)}`

// ─── The checks ──────────────────────────────────────────────────────────────────────────────────

const simEnv = (card) => ({
  PAYWIRE_CARD_CHECKOUT_URL: card.checkoutUrl,
  PAYWIRE_CARD_S2S_URL: card.s2sUrl,
  PAYWIRE_CARD_MERCHANT_KEY: card.merchantKey,
  PAYWIRE_CARD_CLIENT_KEY: card.clientKey,
  PAYWIRE_CARD_PASSWORD: card.password,
})

const snippets = check(
  "the README's ESM snippet as index.js, its CommonJS form as index.cjs, against npx paywire sim",
  async () => {
    const esm = usingBlocks.find((b) => b.lang === 'ts')
    if (!esm) throw broken('README "Using a package"', 'no ts snippet')
    writeFileSync(join(project, 'index.js'), esm.code)
    const cjs = usingBlocks.find((b) => b.lang === 'js' && /^\/\/ index\.cjs/.test(b.code))
    if (cjs) writeFileSync(join(project, 'index.cjs'), cjs.code)
    // What the README says of `npm init -y` alone: a CommonJS project, where the ESM snippet fails.
    const commonjs = join(project, 'commonjs')
    mkdirSync(commonjs)
    const commonjsRun = must('npm', ['init', '-y'], commonjs).then(() => {
      writeFileSync(join(commonjs, 'index.js'), esm.code)
      return run('node', ['index.js', 'x'], commonjs)
    })
    const { description } = await strictSim
    const env = simEnv(description.card)
    const files = cjs ? ['index.js', 'index.cjs'] : ['index.js']
    const runs = await Promise.all(
      files.map(async (file) => [file, await run('node', [file, 'no-such-transaction'], project, { env })]),
    )
    for (const [file, result] of runs) {
      if (result.code !== 0) throw Object.assign(broken('README snippet', `node ${file} exited ${result.code}`), result)
      if (!/transaction_does_not_exist/.test(result.stdout))
        throw Object.assign(broken('README snippet', `node ${file} did not print the gateway's typed refusal`), result)
    }
    const failed = await commonjsRun
    if (failed.code === 0)
      throw broken('README item 8', 'the ESM snippet ran in a CommonJS project; the README says it fails')
    if (!/import statement outside a module|Cannot use import/.test(failed.stderr))
      throw Object.assign(
        broken('README item 8', 'the ESM snippet failed in a CommonJS project for another reason'),
        failed,
      )
    return `${runs.map(([file]) => file).join(' and ')} printed the typed refusal; index.js fails under "type": "commonjs" as the README says`
  },
)

// (1) callback verify and the trailing newline
const callbackFields = {
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  order_number: 'newcomer-1',
  order_amount: '10.00',
  order_currency: 'EUR',
  order_description: 'Newcomer order',
  type: 'sale',
  status: 'success',
  order_status: 'settled',
}
const callbackBody = new URLSearchParams({
  ...callbackFields,
  hash: sha1md5(
    callbackFields.id,
    callbackFields.order_number,
    callbackFields.order_amount,
    callbackFields.order_currency,
    callbackFields.order_description,
    'sim-password',
  ),
}).toString()
const item1 = check('(1) npx paywire callback verify: a body saved with a trailing newline', async () => {
  const contract = 'contract 1 (callback verify diagnoses a trailing newline)'
  const env = { PAYWIRE_CARD_PASSWORD: 'sim-password' }
  const verify = (file, ...extra) =>
    run('npx', ['--no', 'paywire', 'callback', 'verify', '--file', file, ...extra], project, { env })
  writeFileSync(join(project, 'callback.txt'), callbackBody)
  writeFileSync(join(project, 'callback-lf.txt'), `${callbackBody}\n`)
  writeFileSync(join(project, 'callback-crlf.txt'), `${callbackBody}\r\n`)
  const [exact, lf, crlf, json] = await Promise.all([
    verify('callback.txt'),
    verify('callback-lf.txt'),
    verify('callback-crlf.txt'),
    verify('callback-lf.txt', '--json'),
  ])
  if (exact.code !== 0)
    throw Object.assign(
      new Error(`the signed body without a newline did not verify (exit ${exact.code}): the check's own body is wrong`),
      exact,
    )
  for (const [name, result] of [
    ['\\n', lf],
    ['\\r\\n', crlf],
  ]) {
    const output = `${result.stdout}${result.stderr}`
    if (result.code !== 1)
      throw Object.assign(broken(contract, `a body ending with ${name}: exit ${result.code}, expected 1`), result)
    if (!/newline/i.test(output))
      throw Object.assign(broken(contract, `a body ending with ${name}: no word "newline" in the output`), result)
    if (/produced by: -\s*$/m.test(output))
      throw Object.assign(broken(contract, 'an empty "produced by: -" line'), result)
    if (/is not the right hash/.test(output))
      throw Object.assign(broken(contract, '"… is not the right hash …" printed'), result)
  }
  let answer
  try {
    answer = JSON.parse(json.stdout.split('\n')[0])
  } catch {
    throw Object.assign(broken(contract, '--json printed no JSON line'), json)
  }
  if (answer.verified !== false || answer.reason !== 'trailing_newline')
    throw Object.assign(
      broken(contract, `--json answered ${JSON.stringify(answer)}, expected verified false, reason trailing_newline`),
      json,
    )
  return 'exit 0 without it; exit 1 and "newline" with \\n and \\r\\n; --json reason trailing_newline'
})

// (2) strict simulator by default, --lenient
const looseSessions = (card) => [
  [
    'amount "10.0" EUR',
    'order.amount',
    sessionBody(card, { number: orderNumber(), amount: '10.0', currency: 'EUR', description: 'Newcomer order' }),
  ],
  [
    'a numeric amount',
    'order.amount',
    sessionBody(card, { number: orderNumber(), amount: 10, currency: 'EUR', description: 'Newcomer order' }),
  ],
  [
    'success_url http://shop.example/ok (not https, not this machine)',
    'success_url',
    sessionBody(
      card,
      { number: orderNumber(), amount: '10.00', currency: 'EUR', description: 'Newcomer order' },
      { success_url: 'http://shop.example/ok' },
    ),
  ],
]
const item2 = check('(2) npx paywire sim is strict; --lenient accepts the looser sessions', async () => {
  const contract = 'contract 2 (strict simulator by default)'
  const strict = await strictSim.catch((error) => {
    throw broken(contract, error.message + (error.stderr ? `\n${error.stderr}` : ''))
  })
  const sessionUrl = (card) => `${card.checkoutUrl}/api/v1/session`
  const card = strict.description.card
  const valid = await post(sessionUrl(card), {
    json: sessionBody(card, { number: orderNumber(), amount: '10.00', currency: 'EUR', description: 'Newcomer order' }),
  })
  if (valid.status !== 200)
    throw new Error(`a valid session was refused: ${show(valid)} (the check's own request is wrong)`)
  // A return URL on this machine is the local purchase loop: the strict simulator takes it (issue 40, item 6).
  const local = await post(sessionUrl(card), {
    json: sessionBody(
      card,
      { number: orderNumber(), amount: '10.00', currency: 'EUR', description: 'Newcomer order' },
      { success_url: 'http://localhost:3000/paid' },
    ),
  })
  if (local.status !== 200) throw broken(contract, `a loopback success_url was refused: ${show(local)}`)
  // An errors[] element is the gateway's nested error (`{error_code, error_message: "field: ..."}`);
  // a plain string is accepted too.
  const errorText = (entry) => (typeof entry === 'string' ? entry : String(entry?.error_message ?? ''))
  for (const [what, field, body] of looseSessions(card)) {
    const answer = await post(sessionUrl(card), { json: body })
    const errors = Array.isArray(answer.body?.errors) ? answer.body.errors : []
    if (
      answer.status !== 400 ||
      answer.body?.error_code !== 100000 ||
      answer.body?.error_message !== 'Request data is invalid.' ||
      !errors.some((entry) => errorText(entry).startsWith(`${field}:`))
    )
      throw broken(
        contract,
        `${what}: expected 400, 100000, "Request data is invalid." and an errors[] entry whose message starts "${field}:"; got ${show(answer)}`,
      )
  }
  const lenient = await lenientSim.catch((error) => {
    throw broken('contract 2 (paywire sim --lenient)', error.message + (error.stderr ? `\n${error.stderr}` : ''))
  })
  for (const [what, , body] of looseSessions(lenient.description.card)) {
    const answer = await post(sessionUrl(lenient.description.card), { json: body })
    if (answer.status !== 200) throw broken('contract 2 (paywire sim --lenient accepts)', `${what}: ${show(answer)}`)
  }
  return 'a loopback success_url accepted; three refused naming order.amount / success_url; --lenient accepts them'
})

// (3) faults by action and by operation through the control API
const item3 = check('(3) control API: a fault by action CAPTURE, by operation s2s.getTransStatus', async () => {
  const contract = 'contract 3 (failNext by action/operation)'
  const { description } = await faultSim
  const card = description.card
  const control = (path, json) => post(`${description.controlUrl}${path}`, { json })
  const s2s = (action, trans_id) =>
    post(`${card.s2sUrl}/post`, {
      form: { action, client_key: card.clientKey, trans_id, hash: sha1md5(trans_id, card.password) },
    })
  const number = orderNumber()
  const session = await post(`${card.checkoutUrl}/api/v1/session`, {
    json: sessionBody(card, { number, amount: '10.00', currency: 'EUR', description: 'Newcomer order' }),
  })
  if (session.status !== 200) throw new Error(`a valid session was refused: ${show(session)}`)
  const paid = await control(`/card/payments/${number}/pay`, { expiry: '01/2038', capture: false })
  if (paid.status !== 200) throw new Error(`the payer could not pay: ${show(paid)}`)
  const payment = await fetch(`${description.controlUrl}/card/payments/${number}`).then((r) => r.json())
  const transId = payment.trans_id
  const queued = await control('/faults', { service: 'card', action: 'CAPTURE' })
  if (queued.status >= 300) throw broken(contract, `queueing {"service":"card","action":"CAPTURE"}: ${show(queued)}`)
  const status = await s2s('GET_TRANS_STATUS', transId)
  if (status.status !== 200 || status.body?.status !== 'PENDING')
    throw broken(contract, `the fault queued for CAPTURE hit GET_TRANS_STATUS: ${show(status)}`)
  const failed = await s2s('CAPTURE', transId)
  if (failed.status === 200 && failed.body?.result === 'SUCCESS')
    throw broken(contract, `the CAPTURE after the fault succeeded: ${show(failed)}`)
  const captured = await s2s('CAPTURE', transId)
  if (captured.status !== 200) throw broken(contract, `the fault outlived its one CAPTURE: ${show(captured)}`)
  const byOperation = await control('/faults', { service: 'card', operation: 's2s.getTransStatus' })
  if (byOperation.status >= 300)
    throw broken(contract, `queueing {"service":"card","operation":"s2s.getTransStatus"}: ${show(byOperation)}`)
  const lookup = await s2s('GET_TRANS_STATUS', transId)
  if (lookup.status === 200 && lookup.body?.status)
    throw broken(contract, `the status lookup after an operation fault succeeded: ${show(lookup)}`)
  const unknown = await control('/faults', { service: 'card', action: 'NO_SUCH_ACTION' })
  if (unknown.status !== 400 || !JSON.stringify(unknown.body).includes('CAPTURE'))
    throw broken(contract, `an unknown action: expected 400 naming the known ones (CAPTURE…); got ${show(unknown)}`)
  return `CAPTURE failed once (HTTP ${failed.status}), GET_TRANS_STATUS before it answered PENDING; operation fault HTTP ${lookup.status}`
})

// (9) SignatureErrorReason with the installed tsc
const item9 = check('(9) tsc: err.reason is the SignatureErrorReason union', async () => {
  const contract = 'contract 5 (SignatureErrorReason)'
  const types = await typesInstalled
  if (!types.ok) throw new Error(`the type-check project did not install:\n${types.text}`)
  const ts = createRequire(join(typesProject, 'package.json'))('typescript')
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  }
  // The union's members, from the installed declarations.
  const probe = join(typesProject, 'probe.ts')
  writeFileSync(
    probe,
    "import type { SignatureErrorReason } from '@paywire/card-gateway'\nexport declare const r: SignatureErrorReason\n",
  )
  const program = ts.createProgram([probe], options)
  const probeErrors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))
  if (probeErrors.length) throw broken(contract, `not exported by @paywire/card-gateway: ${probeErrors.join('; ')}`)
  const declaration = program.getSourceFile(probe).statements[1].declarationList.declarations[0]
  const type = program.getTypeChecker().getTypeAtLocation(declaration.name)
  const parts = type.isUnion() ? type.types : [type]
  if (!parts.every((t) => t.isStringLiteral()))
    throw broken(
      contract,
      `SignatureErrorReason is ${program.getTypeChecker().typeToString(type)}, not a union of string literals`,
    )
  const members = parts.map((t) => t.value)
  const bad = [
    "import { SignatureVerificationError } from '@paywire/card-gateway'",
    'export function isIt(err: unknown): boolean {',
    '  if (!(err instanceof SignatureVerificationError)) return false',
    "  return err.reason === 'no_such_reason'",
    '}',
  ]
  const good = [
    "import { type SignatureErrorReason, SignatureVerificationError } from '@paywire/card-gateway'",
    'export function label(reason: SignatureErrorReason): string {',
    '  switch (reason) {',
    ...members.map((m) => `    case ${JSON.stringify(m)}:\n      return ${JSON.stringify(m)}`),
    '    default: {',
    '      const unreachable: never = reason',
    '      return unreachable',
    '    }',
    '  }',
    '}',
    'export const reasonOf = (error: unknown): SignatureErrorReason | undefined =>',
    '  error instanceof SignatureVerificationError ? error.reason : undefined',
  ]
  writeFileSync(join(typesProject, 'bad.ts'), `${bad.join('\n')}\n`)
  writeFileSync(join(typesProject, 'good.ts'), `${good.join('\n')}\n`)
  const tsc = join(typesProject, 'node_modules', '.bin', 'tsc')
  const flags = [
    '--noEmit',
    '--strict',
    '--skipLibCheck',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
  ]
  const [badRun, goodRun] = await Promise.all([
    run(tsc, [...flags, 'bad.ts'], typesProject),
    run(tsc, [...flags, 'good.ts'], typesProject),
  ])
  const badLines = badRun.stdout.split('\n').filter((line) => /^bad\.ts\(\d+,\d+\): error/.test(line))
  if (badRun.code === 0 || badLines.length !== 1 || !badLines[0].startsWith('bad.ts(4,'))
    throw Object.assign(
      broken(contract, "expected tsc to fail on exactly line 4 of bad.ts (err.reason === 'no_such_reason')"),
      badRun,
    )
  if (goodRun.code !== 0)
    throw Object.assign(broken(contract, 'the exhaustive switch over SignatureErrorReason does not compile'), goodRun)
  return `${members.length} reasons; ${badLines[0].replace(/^bad\.ts/, 'bad.ts').slice(0, 80)}…`
})

// Issue 40: a Hono merchant from the tarballs, and a rebuilt tarball npm cannot confuse with the last.
const item40 = check('(40) a Hono merchant from the tarballs under strict NodeNext, against npx paywire sim', () =>
  honoMerchant({ work, tarball, startSim, must, broken }),
)
// After every other check: it replaces the core tarball the others install.
const rebuilt = () =>
  check('(40) a rebuilt tarball: the README install line picks it up, npm ci keeps it', async () => {
    const contract = 'README "After a rebuild"'
    const shop = join(work, 'rebuild')
    mkdirSync(shop)
    writeFileSync(join(shop, 'package.json'), JSON.stringify({ name: 'rebuild', private: true, type: 'module' }))
    const install = () =>
      must('sh', ['-ec', `npm install ${tarball('core')} --loglevel=error`], shop, { timeout: 120_000 })
    await install()
    // A rebuild: the same version with other contents, packed as pack-all packs (a hash in the name).
    const unpacked = join(work, 'rebuild-core')
    mkdirSync(unpacked)
    await must('tar', ['-xzf', tarball('core'), '-C', unpacked], work)
    const marker = `// rebuilt ${Date.now()}\n`
    const entry = join(unpacked, 'package', 'dist', 'index.js')
    writeFileSync(entry, marker + readFileSync(entry, 'utf8'))
    const old = tarball('core')
    const next = join(packs, 'rebuilt.tgz')
    await must('tar', ['-czf', next, '-C', unpacked, 'package'], work)
    const digest = createHash('sha256').update(readFileSync(next)).digest('hex').slice(0, 10)
    const named = old.replace(/-[0-9a-f]{10}\.tgz$/, `-${digest}.tgz`)
    renameSync(next, named)
    if (named !== old) rmSync(old) // a name without a hash (the former packing) is the same file

    await install()
    const installed = join(shop, 'node_modules', '@paywire', 'core', 'dist', 'index.js')
    if (!readFileSync(installed, 'utf8').startsWith(marker))
      throw broken(contract, 'npm install kept the earlier build')
    rmSync(join(shop, 'node_modules'), { recursive: true })
    await must('npm', ['ci', '--loglevel=error'], shop, { timeout: 120_000 })
    if (!readFileSync(installed, 'utf8').startsWith(marker)) throw broken(contract, 'npm ci restored the earlier build')
    return `${named.slice(packs.length + 1)}: installed, and npm ci installs it again`
  })

console.log("the README's snippets")
await report(snippets)
console.log('issue 30 through the installed tarballs')
await report(item1, item2, item3, item9)
console.log('issue 40 through the installed tarballs')
await report(item40)
await report(rebuilt())
await finish()
