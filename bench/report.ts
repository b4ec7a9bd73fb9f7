/** Turns the results into the stdout tables and the JSON file. */

import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { dirname } from 'node:path'
import type { CallbackResult } from './callbacks.js'
import type { ColdStartResult } from './cold-start.js'
import type { MemoryResult } from './memory.js'
import type { SignerResult } from './signer.js'
import type { SizeResult } from './size.js'
import type { SocketResult } from './sockets.js'
import type { StoreResult } from './stores.js'
import type { OwnWorkRow } from './stub.js'
import type { Measured, TargetCheck } from './targets.js'
import type { ScenarioResult, Spread } from './throughput.js'
import type { TlsLatencyResult, TlsResult } from './tls.js'

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

/** A paired ratio as `median (min–max)`. */
const ratio = (r: Spread | undefined): string =>
  r === undefined ? '' : `${num(r.median, 2)} (${num(r.min, 2)}–${num(r.max, 2)})`

function throughputTable(scenarios: readonly ScenarioResult[]): string {
  const rows = scenarios.map((s) => [
    s.label,
    String(s.concurrency),
    num(s.clients.sdk?.rps ?? Number.NaN),
    num(s.clients.sdk?.cpuUsPerRequest ?? Number.NaN, 1),
    num(s.clients.undici?.cpuUsPerRequest ?? Number.NaN, 1),
    ratio(s.cpuRatio.undici),
    ratio(s.cpuRatio['undici-bare']),
    ratio(s.cpuRatio.fetch),
    ratio(s.cpuRatio.axios),
  ])
  return table(
    [
      'scenario',
      'in flight',
      'SDK req/s',
      'SDK CPU µs/req',
      'raw CPU µs/req',
      'SDK÷raw undici CPU',
      'SDK÷raw, no deadline',
      'SDK÷fetch CPU',
      'SDK÷axios CPU',
    ],
    rows,
  )
}

function ownWorkTable(rows: readonly OwnWorkRow[]): string {
  return table(
    [
      'on the stub dispatcher',
      'SDK µs/call',
      'undici.request µs/call',
      'own work µs (median, range)',
      'dispatcher.request µs/call',
      'own work over it µs',
    ],
    rows.map((r) => [
      r.label,
      num(r.sdkUs, 2),
      num(r.undiciUs, 2),
      `${num(r.ownUs, 2)} (${num(r.ownRange[0], 2)}–${num(r.ownRange[1], 2)})`,
      r.directUs === undefined ? '' : num(r.directUs, 2),
      r.ownOverDirectUs === undefined ? '' : num(r.ownOverDirectUs, 2),
    ]),
  )
}

function socketTable(rows: readonly SocketResult[]): string {
  return table(
    ['calls in flight', 'SDK sockets (default cap)', 'raw undici sockets (no cap)'],
    rows.map((r) => [String(r.concurrency), String(r.sdk), String(r.undiciUncapped)]),
  )
}

function latencyTable(rows: readonly TlsLatencyResult[]): string {
  return table(
    ['payment', 'added RTT', 'SDK ms', 'raw keep-alive undici ms', 'raw undici, new connection ms', 'SDK − keep-alive'],
    rows.map((r) => [
      `${r.operation} (${r.protocol})`,
      `${r.rttMs} ms`,
      num(r.medianMs.sdk, 1),
      num(r.medianMs['undici-keepalive'], 1),
      num(r.medianMs['undici-reset'], 1),
      `${num(r.sdkExcessRtt, 2)} RTT`,
    ]),
  )
}

function tlsTable(rows: readonly TlsResult[]): string {
  const pct = (share: number) => `${num(share * 100, 1)} %`
  return table(
    [
      'payment',
      'in flight',
      'contender',
      'req/s',
      'CPU µs/payment',
      'handshakes resumed',
      'handshakes/payment',
      'sockets open at most',
      'SDK CPU ÷ this (range)',
    ],
    rows.flatMap((r) =>
      (['sdk', 'undici-reset', 'undici-keepalive'] as const).map((name) => {
        const c = r.contenders[name]
        const paired =
          name === 'undici-reset' ? r.cpuVsReset : name === 'undici-keepalive' ? r.cpuVsKeepAlive : undefined
        return [
          `${r.operation} (${r.protocol})`,
          String(r.concurrency),
          name,
          num(c.rps),
          num(c.cpuUsPerRequest),
          pct(c.resumedShare),
          num(c.handshakesPerCall, 2),
          String(c.mostOpen),
          ratio(paired),
        ]
      }),
    ),
  )
}

function storeTable(rows: readonly StoreResult[]): string {
  return table(
    ['store', 'in flight', 'contender', 'records/s', 'CPU µs/record', 'store ÷ this, records/s (range)'],
    rows.flatMap((r) =>
      r.contenders.map((c, i) => [
        r.store,
        String(r.concurrency),
        c.name,
        num(c.rps),
        num(c.cpuUsPerRecord, 1),
        i === 0 ? '' : ratio(i === r.contenders.length - 1 ? r.vsRaw : r.vsBefore),
      ]),
    ),
  )
}

function signerTable(s: SignerResult): string {
  return table(
    ['signer', 'signatures/s', 'paired ratio'],
    [
      ['gw.sign()', num(s.sdkOpsPerSec), ratio(s.ratio)],
      ['bare node:crypto', num(s.bareOpsPerSec), '1'],
    ],
  )
}

function callbackTable(c: CallbackResult): string {
  const cases = table(
    ['callbacks.verify', 'KiB', 'outcome', 'verifies/s', 'µs per call', 'µs per KiB'],
    Object.values(c.cases).map((k) => [
      k.body,
      num(k.kib, 1),
      k.outcome,
      num(k.verifiesPerSec),
      num(k.usPerCall, 1),
      num(k.usPerKib, 2),
    ]),
  )
  const scaling = table(
    ['callbacks.verify scaling', 'µs/KiB at 4 MiB ÷ at 64 KiB (paired)'],
    (['form', 'json'] as const).map((label) => [label, ratio(c.scaling[label])]),
  )
  return `${cases}\n\n${scaling}`
}

function coldTable(results: readonly ColdStartResult[], emptyMs: number | undefined): string {
  const rows = results.map((c) => [
    c.pkg,
    num(c.importMs, 1),
    c.loads,
    num(c.loadsMs, 1),
    `${num(c.ownMs.median, 1)} (${num(c.ownMs.min, 1)}–${num(c.ownMs.max, 1)})`,
    c.referenceMs === undefined ? '' : num(c.referenceMs, 1),
    ratio(c.vsReference),
    c.firstCallMs === undefined ? '' : `${num(c.firstCallMs, 1)} vs ${num(c.referenceFirstCallMs ?? Number.NaN, 1)}`,
    ratio(c.firstCallVsReference),
    ratio(c.firstCallVsEmpty),
    c.undiciFirstCallMs === undefined ? '' : num(c.undiciFirstCallMs, 1),
    ratio(c.firstCallVsUndici),
    c.firstCallExitMs === undefined
      ? ''
      : `${num(c.firstCallExitMs, 1)} vs ${num(c.undiciFirstCallExitMs ?? Number.NaN, 1)}`,
    ratio(c.firstCallExitVsUndici),
  ])
  const note =
    emptyMs === undefined
      ? ''
      : `\n(node -e 0 alone: ${num(emptyMs, 1)} ms; medians of ${results[0]?.runs} interleaved runs; own and ÷ are per-run pairs)`
  return (
    table(
      [
        'package',
        'import ms',
        'what dist/index.js imports',
        'that ms',
        'own ms',
        'reference ms',
        'import ÷ reference',
        'to first answer ms (vs reference)',
        'first answer ÷ reference',
        'first answer ÷ node -e 0',
        'raw undici first answer ms',
        'first answer ÷ raw undici',
        'to exit ms (vs raw undici)',
        'to exit ÷ raw undici',
      ],
      rows,
    ) + note
  )
}

function sizeTable(sizes: readonly SizeResult[]): string {
  return table(
    ['package', 'own minified KB', 'own gzip KB', 'shipped minified KB (zod inside)'],
    sizes.map((s) => [s.pkg, num(s.minified / 1024, 1), num(s.gzip / 1024, 1), num(s.shippedMinified / 1024, 1)]),
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
  if (r.ownWork) parts.push(ownWorkTable(r.ownWork))
  if (r.sockets) parts.push(socketTable(r.sockets))
  if (r.tls) parts.push(tlsTable(r.tls))
  if (r.tlsLatency) parts.push(latencyTable(r.tlsLatency))
  if (r.signer) parts.push(signerTable(r.signer))
  if (r.callbacks) parts.push(callbackTable(r.callbacks))
  if (r.stores) parts.push(storeTable(r.stores))
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
