#!/usr/bin/env node
/**
 * docs/adding-an-endpoint.md, proven against the code. In a temporary copy of the committed tree (a
 * clean clone, as CI has it: uncommitted changes are not in it), one scratch endpoint is added to each
 * service exactly as the guide says, and everything that checks an endpoint must pass with no other
 * edit. The endpoints are hypothetical (the real services have none of them):
 *
 * - card-gateway `s2s.getTransDetails`: the S2S action GET_TRANS_DETAILS by `trans_id`, a lookup
 *   (`safe`, bound by `lookupAnswerNames`) answering the record GET_TRANS_STATUS answers;
 * - remittance `lookup.transactionFees`: `POST /api/lookup/transaction-fees`, a `safe` lookup with a
 *   params schema, answered with a small record;
 * - bill-payment `transactions.reverse(transReference, body)`: `POST
 *   /api/transactions/{transReference}/reverse`, money-moving (`unsentOnly`, reconciled by its
 *   Idempotency-Key in the transactions list, as `execute` is), its simulator route reversing a payment.
 *
 * Each is what a person writes by following the guide (the row, the method in the resource's
 * interface, the params type as `extends EndpointParams<typeof ROWS.name> {}`, the simulator's route,
 * the example, the getting-started line), kept as scripts/adding-an-endpoint/<package>.patch. In the
 * copy (`git archive` and `pnpm install --frozen-lockfile --offline`):
 *
 * 1. the three patches apply (none touches a test file);
 * 2. `node scripts/public-types.mjs` writes the params types out, then `--check` passes;
 * 3. `node scripts/api-report.mjs` fails, as the guide says, until `--update` adds each new method
 *    to its package's api.md; then it passes;
 * 4. the type check: one tsc program over what `pnpm typecheck` checks (each package's src and test,
 *    examples, bench; the same compiler options), in about 11 s instead of 70;
 * 5. biome on the files touched (its warnings too), scripts/check-structure.mjs and
 *    scripts/check-doc-names.mjs, as CI runs them;
 * 6. the tests: every test of card-gateway, remittance and bill-payment (each package's endpoint
 *    checklist among them) and the reliability suite (the property and ledger suites among them) but
 *    load.test.ts, which measures heap and throughput, not rows. None needs Redis or PostgreSQL.
 *
 * Any failure fails the script. A failing test is one the new endpoint would have needed an edit
 * for, which the guide says none does: the test or the guide is wrong, never the patch's business to
 * hide. A patch that no longer applies means the code under the guide moved: follow the guide again
 * in a copy and write the patch anew (scripts/adding-an-endpoint/README.md), and fix the guide if a
 * step changed.
 *
 * Prints a PR-style summary per endpoint (files touched, lines added and removed, from `git diff
 * --numstat` in the copy: written by hand, i.e. the patch, and written by the scripts), confirms no
 * test file was edited, and prints its duration (budget: 4 min on 2 cores).
 *
 * Run: node scripts/check-adding-an-endpoint.mjs [--ref <commit>] [--keep]
 * (--ref copies another commit, default HEAD; --keep leaves the temporary copy and its logs.)
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkRunner, seconds } from './checks.mjs'

const root = resolve(fileURLToPath(new URL('..', import.meta.url)))
const patchDir = fileURLToPath(new URL('./adding-an-endpoint/', import.meta.url))
const argv = process.argv.slice(2)
const ref = argv.includes('--ref') ? argv[argv.indexOf('--ref') + 1] : 'HEAD'
if (ref === undefined || ref.startsWith('--')) {
  console.error('usage: node scripts/check-adding-an-endpoint.mjs [--ref <commit>] [--keep]')
  process.exit(2)
}
const keep = argv.includes('--keep')
const started = Date.now()
const BUDGET_MS = 240_000

/** The scratch endpoints: the package, the method as the getting-started page names it, what it is. */
const ENDPOINTS = [
  {
    pkg: 'card-gateway',
    client: 'gw',
    method: 's2s.getTransDetails',
    what: 'the S2S lookup GET_TRANS_DETAILS by trans_id (safe)',
  },
  {
    pkg: 'remittance',
    client: 'remit',
    method: 'lookup.transactionFees',
    what: 'POST /api/lookup/transaction-fees, a safe lookup with a params schema',
  },
  {
    pkg: 'bill-payment',
    client: 'bills',
    method: 'transactions.reverse',
    what: 'POST /api/transactions/{transReference}/reverse, which moves money (unsentOnly)',
  },
]

/** A test file: under a `test/` or `tests/` folder, or named `*.test.ts`. */
const isTestFile = (path) => /(^|\/)tests?\//.test(path) || /\.test\.[cm]?[jt]s$/.test(path)

// ─── Running things ──────────────────────────────────────────────────────────────────────────────

/** The environment of commands in the copy: no GIT_* variable of a caller (a hook) points git elsewhere. */
const copyEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')))

/** Runs a command; resolves `{ code, stdout, stderr }` whatever the exit code (the caller judges it). */
function run(cmd, args, cwd, { env = copyEnv, timeout = 300_000 } = {}) {
  const result = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 256 * 1024 * 1024 })
  if (result.error) throw Object.assign(result.error, { stdout: result.stdout, stderr: result.stderr })
  return { code: result.status ?? 1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' }
}

/** Runs a command that must succeed; throws its output and `message` otherwise. */
function must(cmd, args, cwd, message = `${cmd} ${args.join(' ')} exited with an error`) {
  const result = run(cmd, args, cwd)
  if (result.code !== 0) throw Object.assign(new Error(message), result)
  return result
}

/** Who commits in the copy, and nothing of the caller's git setup (hooks, signing) on the way. */
const GIT_IDENTITY = [
  'user.name=check-adding-an-endpoint',
  'user.email=check@paywire.invalid',
  'commit.gpgsign=false',
  'core.hooksPath=/dev/null',
  'init.defaultBranch=main',
].flatMap((setting) => ['-c', setting])

// ─── The copy ────────────────────────────────────────────────────────────────────────────────────

const temp = mkdtempSync(join(tmpdir(), 'paywire-adding-an-endpoint-'))
const work = join(temp, 'repo')
mkdirSync(work)
const git = (...args) => must('git', [...GIT_IDENTITY, ...args], work)
const cleanUp = () => {
  if (!keep) rmSync(temp, { recursive: true, force: true })
}
process.on('SIGINT', () => {
  cleanUp()
  process.exit(130)
})

const { check, report, exit } = checkRunner('adding-an-endpoint')
/** Runs one check now and prints its line; resolves whether it passed. */
const step = (label, fn) => report(check(label, fn))
/** A failed step that leaves nothing to check: the summary line, then exit 1. */
const stop = () => {
  cleanUp()
  exit()
}

let commit = ''
console.log(`docs/adding-an-endpoint.md, followed for ${ENDPOINTS.length} scratch endpoints in a copy of ${ref}`)

const copied = await step(`copy of ${ref} (git archive) with its install (pnpm install --frozen-lockfile)`, () => {
  commit = must('git', ['rev-parse', '--verify', `${ref}^{commit}`], root).stdout.trim()
  must('git', ['archive', '--format=tar', '-o', join(temp, 'tree.tar'), commit], root)
  must('tar', ['-xf', join(temp, 'tree.tar'), '-C', work])
  // The store the checkout's own install filled; a registry round trip only when it lacks a package.
  let install = run('pnpm', ['install', '--frozen-lockfile', '--offline'], work)
  if (install.code !== 0) install = run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], work)
  if (install.code !== 0) throw Object.assign(new Error('pnpm install --frozen-lockfile failed in the copy'), install)
  git('init', '-q')
  git('add', '-A')
  git('commit', '-q', '--no-verify', '-m', `${ref} (${commit.slice(0, 7)})`)
  return keep ? `${commit.slice(0, 7)}, in ${work}` : commit.slice(0, 7)
})
if (!copied) stop()

// ─── 1. What a person writes: the patches ───────────────────────────────────────────────────────

const handFiles = new Map()
const applied = await step('the patches apply, and none edits a test file', () => {
  for (const endpoint of ENDPOINTS) {
    const patch = join(patchDir, `${endpoint.pkg}.patch`)
    if (!existsSync(patch)) throw new Error(`no patch ${patch}`)
    const name = `scripts/adding-an-endpoint/${endpoint.pkg}.patch`
    const checked = run('git', ['apply', '--check', patch], work)
    if (checked.code !== 0) {
      throw Object.assign(
        new Error(
          `${name} no longer applies to ${ref} (${commit.slice(0, 7)}): the code docs/adding-an-endpoint.md describes has moved. ` +
            `Follow the guide again for ${endpoint.pkg} ${endpoint.method} in a copy and write the patch anew ` +
            '(scripts/adding-an-endpoint/README.md), and update the guide where a step changed.',
        ),
        checked,
      )
    }
    const files = must('git', ['apply', '--numstat', patch], work)
      .stdout.trim()
      .split('\n')
      .map((line) => line.split('\t')[2])
    const tests = files.filter(isTestFile)
    if (tests.length > 0)
      throw new Error(`${name} edits test files (${tests.join(', ')}): the guide says none needs an edit`)
    for (const file of files) handFiles.set(file, endpoint)
    must('git', ['apply', patch], work)
  }
  git('add', '-A')
  git('commit', '-q', '--no-verify', '-m', 'scratch endpoints: written by hand')
  return ENDPOINTS.map((e) => `${e.pkg}.patch`).join(', ')
})
if (!applied) stop()

// ─── 2, 3. What the scripts write: the params types and api.md ──────────────────────────────────

await step('node scripts/public-types.mjs writes the params types out, then --check passes', () => {
  must('node', ['scripts/public-types.mjs'], work)
  must('node', ['scripts/public-types.mjs', '--check'], work)
})

await step('node scripts/api-report.mjs fails until --update pins each new method in api.md, then passes', () => {
  const before = run('node', ['scripts/api-report.mjs'], work)
  const stale = `${before.stdout}${before.stderr}`
  const unseen = ENDPOINTS.filter((e) => !stale.includes(`packages/${e.pkg}/api.md`))
  if (before.code === 0 || unseen.length > 0) {
    throw Object.assign(
      new Error(`api-report did not fail for ${unseen.map((e) => e.pkg).join(', ')}: a new method is not pinned`),
      before,
    )
  }
  must('node', ['scripts/api-report.mjs', '--update'], work)
  must('node', ['scripts/api-report.mjs'], work)
  for (const endpoint of ENDPOINTS) {
    const added = git('diff', '-U0', '--', `packages/${endpoint.pkg}/api.md`).stdout
    const member = endpoint.method.split('.')[1]
    if (!added.split('\n').some((line) => line.startsWith('+') && line.includes(`\`${member}(`))) {
      throw new Error(`packages/${endpoint.pkg}/api.md does not show ${member}(…) after --update`)
    }
  }
})

git('add', '-A')
git('commit', '-q', '--no-verify', '--allow-empty', '-m', 'scratch endpoints: written by the scripts')

// ─── 4, 5. Type check, lint, structure, doc names ───────────────────────────────────────────────

await step('typecheck: one tsc program over the files and options of pnpm typecheck', () => {
  // Every typecheck project (packages/*, examples, bench) is tsconfig.base.json with noEmit over these
  // files; one program reads the shared sources once. `.tmp/` is ignored: the diff does not show it.
  mkdirSync(join(work, '.tmp'), { recursive: true })
  const config = {
    extends: '../tsconfig.base.json',
    compilerOptions: { noEmit: true },
    include: ['../packages/*/src', '../packages/*/test', '../examples/**/*.ts', '../bench/*.ts'],
    exclude: ['../**/node_modules'],
  }
  writeFileSync(join(work, '.tmp', 'tsconfig.typecheck.json'), JSON.stringify(config, null, 2))
  must(join(work, 'node_modules', '.bin', 'tsc'), ['-p', '.tmp/tsconfig.typecheck.json'], work)
})

const changed = git('diff', '--name-only', 'HEAD~2', 'HEAD').stdout.trim().split('\n').filter(Boolean)
const lintable = changed.filter((file) => /\.(ts|mts|cts|js|mjs|cjs)$/.test(file))
await step(`biome check --error-on-warnings of the ${lintable.length} source files touched`, () => {
  const biome = join(work, 'node_modules', '.bin', 'biome')
  if (lintable.length > 0) must(biome, ['check', '--error-on-warnings', ...lintable], work)
})
await step('node scripts/check-structure.mjs (no import cycle, no file over 400 lines)', () => {
  must('node', ['scripts/check-structure.mjs'], work)
})
await step('node scripts/check-doc-names.mjs (every name the docs use exists)', () => {
  must('node', ['scripts/check-doc-names.mjs'], work)
})

// ─── 6. The tests ───────────────────────────────────────────────────────────────────────────────

const PROJECTS = ['card-gateway', 'remittance', 'bill-payment', 'reliability']
const resultsFile = join(temp, 'vitest.json')
const logFile = join(temp, 'vitest.log')
let tests
await step(`tests: vitest ${PROJECTS.map((p) => `--project ${p}`).join(' ')}, load.test.ts aside`, () => {
  const vitest = run(
    join(work, 'node_modules', '.bin', 'vitest'),
    [
      'run',
      ...PROJECTS.flatMap((project) => ['--project', project]),
      '--exclude',
      '**/load.test.ts',
      '--reporter=./scripts/summary-reporter.ts',
      '--reporter=json',
      `--outputFile.json=${resultsFile}`,
      '--includeTaskLocation',
    ],
    work,
    { env: copyEnv, timeout: 600_000 },
  )
  writeFileSync(logFile, `${vitest.stdout}\n${vitest.stderr}`)
  if (!existsSync(resultsFile)) throw Object.assign(new Error('vitest wrote no results'), vitest)
  tests = JSON.parse(readFileSync(resultsFile, 'utf8'))
  const line = `${tests.numPassedTests} passed, ${tests.numFailedTests} failed, ${tests.numPendingTests} skipped, ${tests.testResults.length} files`
  if (vitest.code !== 0 || !tests.success) throw new Error(line)
  return line
})

// ─── The summary ────────────────────────────────────────────────────────────────────────────────

/** `git diff --numstat` between two commits of the copy, by path. */
function numstat(from, to) {
  const rows = new Map()
  for (const line of git('diff', '--numstat', from, to).stdout.trim().split('\n').filter(Boolean)) {
    const [added, removed, path] = line.split('\t')
    rows.set(path, { added: Number(added) || 0, removed: Number(removed) || 0 })
  }
  return rows
}

/** The endpoint a changed file belongs to: its package's folder, its getting-started page, or its patch. */
function ownerOf(path) {
  return (
    ENDPOINTS.find((e) => path.startsWith(`packages/${e.pkg}/`) || path === `docs/getting-started-${e.pkg}.md`) ??
    handFiles.get(path)
  )
}

const hand = numstat('HEAD~2', 'HEAD~1')
const scripts = numstat('HEAD~1', 'HEAD')
const both = numstat('HEAD~2', 'HEAD')
const lines = (stat) => (stat ? `+${stat.added}${stat.removed ? ` −${stat.removed}` : ''}` : '')
const sum = (stats) =>
  stats.reduce((total, s) => ({ added: total.added + s.added, removed: total.removed + s.removed }), {
    added: 0,
    removed: 0,
  })

console.log(`\n# Scratch endpoints, following docs/adding-an-endpoint.md (${commit.slice(0, 7)})`)
for (const endpoint of [...ENDPOINTS, undefined]) {
  const files = [...both.keys()].filter((path) => ownerOf(path) === endpoint)
  if (endpoint === undefined && files.length === 0) continue
  const total = sum(files.map((f) => both.get(f)))
  const byHand = files.filter((f) => hand.has(f))
  console.log(
    endpoint
      ? `\n## ${endpoint.pkg}: \`${endpoint.client}.${endpoint.method}\`, ${endpoint.what}`
      : '\n## not in any endpoint’s package',
  )
  console.log(
    `\n${files.length} files, ${lines(total)}: by hand ${byHand.length} files ${lines(sum(byHand.map((f) => hand.get(f))))}, ` +
      `by the scripts ${lines(sum(files.filter((f) => scripts.has(f)).map((f) => scripts.get(f))))}\n`,
  )
  console.log('| file | by hand | by the scripts |\n|---|---|---|')
  for (const file of files) console.log(`| \`${file}\` | ${lines(hand.get(file))} | ${lines(scripts.get(file))} |`)
  if (endpoint && tests) {
    const checklist = tests.testResults
      .flatMap((file) => file.assertionResults)
      .filter((test) => test.fullName.includes('endpoint checklist') && test.fullName.includes(`${endpoint.method}:`))
    const passed = checklist.filter((test) => test.status === 'passed').length
    console.log(`\nendpoint checklist: ${passed} of ${checklist.length} checks of ${endpoint.method} passed`)
  }
}

const edited = [...both.keys()].filter(isTestFile)
console.log(
  edited.length === 0
    ? `\nNo test file edited: none of the ${both.size} files touched is under test/ or tests/, or a *.test.ts.`
    : `\nTest files edited: ${edited.join(', ')}`,
)

if (tests && !tests.success) {
  console.log(
    '\nFailed tests: with the endpoints added as the guide says, each is a test that needed an edit (the guide says' +
      ' none does), or a step the patch misses:',
  )
  for (const file of tests.testResults) {
    const path = file.name.startsWith(`${work}/`) ? file.name.slice(work.length + 1) : file.name
    const failed = file.assertionResults.filter((test) => test.status === 'failed')
    if (failed.length === 0 && file.status === 'failed')
      console.log(`  ${path}: ${String(file.message).split('\n')[0]}`)
    for (const test of failed) {
      const message = (test.failureMessages[0] ?? '').split('\n')[0]
      const at = test.location?.line === undefined ? path : `${path}:${test.location.line}`
      console.log(`  ${at}  ${test.fullName}\n      ${message.slice(0, 300)}`)
    }
  }
}
if (!tests && existsSync(logFile)) console.log(`\nvitest's output ends:\n${readFileSync(logFile, 'utf8').slice(-4000)}`)

const took = Date.now() - started
if (took > BUDGET_MS) console.log(`\n${seconds(took)}: over the budget of ${seconds(BUDGET_MS)}`)
if (keep) console.log(`\nthe copy and its logs (vitest.log, vitest.json): ${temp}`)
cleanUp()
exit()
