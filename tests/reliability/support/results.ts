/** Figures measured by the tests, merged into `tests/reliability/results.json` (docs/reliability.md quotes them). */

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const FILE = fileURLToPath(new URL('../results.json', import.meta.url))
const LOCK = `${FILE}.lock`

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Test files run in parallel workers: a directory lock makes read-merge-write atomic across them. */
function withLock(action: () => void): void {
  for (let tries = 0; ; tries++) {
    try {
      mkdirSync(LOCK)
      break
    } catch {
      if (tries > 500) rmSync(LOCK, { recursive: true, force: true }) // a crashed run left it behind
      pause(10)
    }
  }
  try {
    action()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

/** Replaces the `topic` section of results.json with `figures`, stamped with the time of the run. */
export function recordResults(topic: string, figures: Record<string, unknown>): void {
  withLock(() => {
    let all: Record<string, unknown> = {}
    try {
      all = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>
    } catch {
      all = {}
    }
    all[topic] = { ...figures, measuredAt: new Date().toISOString(), node: process.version }
    const tmp = `${FILE}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`)
    renameSync(tmp, FILE)
  })
}
