/** Turns the results into the stdout tables and the JSON file. */

import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { dirname } from 'node:path'
import type { CallbackResult } from './callbacks.js'
import { CLIENT_NAMES } from './clients.js'
import type { ColdStartResult } from './cold-start.js'
import type { MemoryResult } from './memory.js'
import type { SignerResult } from './signer.js'
import type { SizeResult } from './size.js'
import type { Measured, TargetCheck } from './targets.js'
import type { ScenarioResult } from './throughput.js'

export interface Machine {
  readonly cpu: string
  readonly cores: number
  readonly memoryGb: number
  readonly node: string
  readonly platform: string
  readonly date: string
}

export function machine(): Machine {
  const list = cpus()
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    date: new Date().toISOString(),
  }
}

export interface Report extends Measured {
  readonly mode: 'full' | 'quick' | 'partial'
  readonly machine: Machine
  readonly settings: Record<string, number | string>
  readonly nodeEmptyMs?: number
  readonly targets: readonly TargetCheck[]
}

const num = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–'

/** A plain-text table, first column left-aligned, the others right-aligned. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

function throughputTable(scenarios: readonly ScenarioResult[]): string {
  const rows: string[][] = []
  for (const s of scenarios) {
    for (const client of CLIENT_NAMES) {
      const f = s.clients[client]
      if (f.samples.length === 0) continue
      const isSdk = client === 'sdk'
      rows.push([
        client === 'sdk' ? s.label : '',
        client,
        num(f.rps),
        num(f.cpuUsPerRequest, 1),
        isSdk ? '' : num(s.throughputRatio[client], 2),
        isSdk ? '' : num(s.cpuRatio[client], 2),
      ])
    }
  }
  return table(
    ['scenario', 'client', 'req/s', 'CPU µs/req', 'SDK÷this req/s (↑ better)', 'SDK÷this CPU/req (↓ better)'],
    rows,
  )
}

function signerTable(s: SignerResult): string {
  return table(
    ['signer', 'signatures/s', 'ratio'],
    [
      ['SDK sign()', num(s.sdkOpsPerSec), num(s.ratio, 2)],
      ['bare node:crypto', num(s.bareOpsPerSec), '1.00'],
    ],
  )
}

function callbackTable(c: CallbackResult): string {
  return table(
    ['callbacks.verify', 'KiB', 'verifies/s', 'µs per KiB'],
    Object.values(c.cases).map((k) => [k.body, num(k.kib, 1), num(k.verifiesPerSec), num(k.usPerKib, 2)]),
  )
}

function coldTable(results: readonly ColdStartResult[], emptyMs: number | undefined): string {
  const rows = results.map((c) => [
    c.pkg,
    num(c.importMs, 1),
    c.baseline,
    num(c.baselineMs, 1),
    num(c.ownOverDepsMs, 1),
    c.loadsBaseline,
    num(c.loadsMs, 1),
    num(c.ownMs, 1),
  ])
  const note =
    emptyMs === undefined ? '' : `\n(node -e 0 alone: ${num(emptyMs, 1)} ms; medians of ${results[0]?.runs} runs)`
  return (
    table(
      [
        'package',
        'import ms',
        'declared deps',
        'deps ms',
        'over deps ms',
        'what dist/index.js imports',
        'that ms',
        'own ms (judged)',
      ],
      rows,
    ) + note
  )
}

function sizeTable(sizes: readonly SizeResult[]): string {
  return table(
    ['package', 'minified KB', 'gzip KB'],
    sizes.map((s) => [s.pkg, num(s.minified / 1024, 1), num(s.gzip / 1024, 1)]),
  )
}

function memoryTable(m: MemoryResult): string {
  return table(
    ['memory (heap after GC)', 'MB'],
    [
      ['after warm-up', num(m.beforeMb, 2)],
      ...m.heapMb.slice(1).map((mb, i) => [`after ${((i + 1) * m.calls) / 4} calls`, num(mb, 2)]),
      ['growth', num(m.growthMb, 2)],
      ['rss at end', num(m.rssAfterMb, 1)],
    ],
  )
}

function targetTable(targets: readonly TargetCheck[]): string {
  return table(
    ['target', 'subject', 'actual', 'limit', 'result'],
    targets.map((t) => [
      t.target,
      t.subject,
      `${num(t.actual, 2)} ${t.unit}`,
      `${num(t.limit, 2)} ${t.unit}`,
      t.pass ? 'pass' : 'MISS',
    ]),
  )
}

export function renderReport(r: Report): string {
  const m = r.machine
  const parts = [
    `paywire bench (${r.mode}) — ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}, ${m.platform}, ${m.date}`,
    `settings: ${Object.entries(r.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  ]
  if (r.scenarios.length > 0) parts.push(throughputTable(r.scenarios))
  if (r.signer) parts.push(signerTable(r.signer))
  if (r.callbacks) parts.push(callbackTable(r.callbacks))
  if (r.coldStart) parts.push(coldTable(r.coldStart, r.nodeEmptyMs))
  if (r.sizes) parts.push(sizeTable(r.sizes))
  if (r.memory) parts.push(memoryTable(r.memory))
  if (r.targets.length > 0) parts.push(targetTable(r.targets))
  return `${parts.join('\n\n')}\n`
}

export function writeReport(path: string, r: Report): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(r, null, 2)}\n`)
}
