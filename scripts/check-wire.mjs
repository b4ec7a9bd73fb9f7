#!/usr/bin/env node
/**
 * Checks docs/wire.md against a running simulator, the way a merchant without Node uses it:
 *
 * 1. starts `paywire sim --port 0 --json` (and a second one with `--signature card-md5-strrev`, for
 *    the S2S callback block) from the single-file executable (dist-sea/paywire, built
 *    first unless `--no-build`; `--bin <path>` for another build) in an empty directory, so what is
 *    tested is the file the Docker image copies, with no node_modules around;
 * 2. runs every block fenced ```sh wire of docs/wire.md, in order, in one bash session (blocks use
 *    the variables earlier ones set), with PAYWIRE set to the simulator's origin; each block's output
 *    must contain the text of the `<!-- wire-expect: … -->` comment above it and no failure envelope;
 * 3. runs the Python client's end-to-end script (examples/python/run_against_sim.py) against it;
 * 4. stops the simulator. Exits 1 on any failure; prints the duration of each step.
 *
 * Needs: bash, curl, coreutils (md5sum, sha1sum), sed, rev (util-linux or bsdextrautils), python3 (3.9+).
 * Run: node scripts/check-wire.mjs [--no-build] [--bin path]
 */

import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const binIndex = args.indexOf('--bin')
const started = performance.now()
const failures = []

function step(name, since) {
  process.stdout.write(`${name}: ${((performance.now() - since) / 1000).toFixed(1)} s\n`)
}

/** The ```sh wire blocks of a Markdown text: `{ line, code, expect }`. */
function wireBlocks(markdown) {
  const lines = markdown.split('\n')
  const blocks = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```sh wire') continue
    const before = lines[i - 1] ?? ''
    const expect = /^<!-- wire-expect: (.+) -->$/.exec(before.trim())?.[1]
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`docs/wire.md:${i + 1}: the block is not closed`)
    blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n'), expect })
    i = end
  }
  return blocks
}

let bin = binIndex >= 0 ? resolve(args[binIndex + 1] ?? '') : join(root, 'dist-sea/paywire')
if (binIndex < 0 && !args.includes('--no-build')) {
  const t = performance.now()
  execFileSync(process.execPath, [join(root, 'scripts/build-sea.mjs')], { stdio: 'inherit' })
  step('build the single executable', t)
}

// An empty directory: the executable must not find the repository's node_modules or sources.
const workdir = mkdtempSync(join(tmpdir(), 'paywire-wire-'))
copyFileSync(bin, join(workdir, 'paywire'))
bin = join(workdir, 'paywire')

// The Python script's callback listener: a free port chosen now, given to the simulator.
const callbackPort = Number(
  execFileSync('python3', ['-c', 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'])
    .toString()
    .trim(),
)

/** Every simulator started, to stop at the end. */
const sims = []

/** Starts `paywire sim --port 0 --json` with `extra` options; resolves with the process and its origin. */
async function startSim(extra) {
  const child = spawn(bin, ['sim', '--port', '0', '--json', ...extra], {
    cwd: workdir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  sims.push(child) // stopped in the finally below, even if it never says it listens
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const description = await new Promise((resolveLine, reject) => {
    let buffered = ''
    const onData = (chunk) => {
      buffered += chunk
      const newline = buffered.indexOf('\n')
      if (newline < 0) return
      child.stdout.off('data', onData)
      child.stdout.resume() // one JSON line per request follows: drained, not kept
      try {
        resolveLine(JSON.parse(buffered.slice(0, newline)))
      } catch (error) {
        reject(error)
      }
    }
    child.stdout.on('data', onData)
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}) before listening: ${stderr}`)))
  })
  return { child, origin: description.controlUrl.replace(/\/__paywire$/, '') }
}

try {
  const t0 = performance.now()
  const main = await startSim(['--callback-url', `http://127.0.0.1:${callbackPort}/callback`])
  step('simulator cold start to listening', t0)
  const origin = main.origin
  // The S2S callback block of the page needs an account on the card-md5-strrev signature scheme.
  const strrev = await startSim(['--signature', 'card-md5-strrev'])

  const t1 = performance.now()
  const blocks = wireBlocks(readFileSync(join(root, 'docs/wire.md'), 'utf8'))
  if (blocks.length < 14)
    failures.push(`docs/wire.md: only ${blocks.length} \`\`\`sh wire blocks (expected 14 or more)`)
  const script = [
    'set -euo pipefail',
    ...blocks.map((b, i) => `printf '\\n@@wire-block ${i}\\n'\n${b.code}`),
    "printf '\\n@@wire-done\\n'",
  ].join('\n')
  let output = ''
  try {
    output = execFileSync('bash', ['-c', script], {
      cwd: workdir,
      env: { ...process.env, PAYWIRE: origin, PAYWIRE_STRREV: strrev.origin, LC_ALL: 'C' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000, // a block that hangs fails the check instead of the CI job's own limit
    })
  } catch (error) {
    output = String(error.stdout ?? '')
    failures.push(`the wire blocks stopped with exit code ${error.status}: ${String(error.stderr ?? '').trim()}`)
  }
  const parts = output.split(/\n@@wire-block (\d+)\n/)
  const outputs = new Map()
  for (let i = 1; i < parts.length; i += 2) outputs.set(Number(parts[i]), parts[i + 1].replace(/\n@@wire-done\n$/, ''))
  for (const [i, block] of blocks.entries()) {
    const where = `docs/wire.md:${block.line}`
    const out = outputs.get(i)
    if (out === undefined) {
      failures.push(`${where}: did not run`)
      continue
    }
    if (!block.expect) failures.push(`${where}: no <!-- wire-expect: … --> comment above the block`)
    else if (!out.includes(block.expect)) failures.push(`${where}: the output lacks ${block.expect}:\n${out.trim()}`)
    if (/"result": ?"ERROR"/.test(out)) failures.push(`${where}: the gateway answered an error:\n${out.trim()}`)
  }
  process.stdout.write(`${blocks.length} wire blocks run\n`)
  step('docs/wire.md curl blocks', t1)

  const t2 = performance.now()
  try {
    const out = execFileSync(
      'python3',
      [join(root, 'examples/python/run_against_sim.py'), origin, '--callback-port', String(callbackPort)],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, // no __pycache__ left in examples/
      },
    )
    process.stdout.write(out)
  } catch (error) {
    failures.push(`the Python client failed (${error.status}):\n${error.stdout ?? ''}${error.stderr ?? ''}`)
  }
  step('Python client end to end', t2)
} finally {
  for (const child of sims) {
    child.kill('SIGTERM')
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done()))
  }
  rmSync(workdir, { recursive: true, force: true })
}

step('check-wire total', started)
if (failures.length > 0) {
  process.stderr.write(`\ncheck-wire: ${failures.length} failure(s)\n${failures.map((f) => `- ${f}`).join('\n')}\n`)
  process.exit(1)
}
process.stdout.write('check-wire: docs/wire.md and the Python client agree with the simulator\n')
