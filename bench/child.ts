/** Forks a bench TypeScript file as a child process under the tsx loader, with explicit node flags. */

import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Forks `file` with `nodeFlags` only: the parent's own flags (e.g. `--cpu-prof`) do not follow;
 * `env` is added to the parent's environment (what Node reads at start, such as `NODE_EXTRA_CA_CERTS`).
 * The child gets an IPC channel and shares the parent's stdout and stderr.
 */
export function forkTs(
  file: string,
  nodeFlags: readonly string[] = [],
  args: readonly string[] = [],
  env: Record<string, string> = {},
): ChildProcess {
  return fork(file, [...args], {
    execArgv: [...nodeFlags, '--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Children load the packages' built dist too, like the parent (see tsconfig.run.json).
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: fileURLToPath(new URL('./tsconfig.run.json', import.meta.url)) },
  })
}

/** Resolves with the child's first IPC message; rejects if it exits or fails before sending one. */
export function firstMessage(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`child ${child.pid} exited (code ${code}) before reporting`))
    child.once('error', reject)
    child.once('exit', onExit)
    child.once('message', (message) => {
      child.off('exit', onExit)
      resolve(message)
    })
  })
}
