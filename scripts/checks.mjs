/**
 * The check runner of the repository's check scripts (packaging, newcomer): each check starts at
 * once, its `ok`/`FAIL` line is printed in the order the checks were declared, and the run ends
 * with a summary and an exit code.
 */

/** A duration for a check line: `12.3 s`. */
export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`

/** The checks of one script; `kind` names them in the summary ("packaging", "newcomer"). */
export function checkRunner(kind) {
  const started = Date.now()
  const failures = []

  /** Runs `fn` (sync or async) now; `report` prints its line. A failure shows the command's output tail. */
  function check(label, fn) {
    const at = Date.now()
    return Promise.resolve()
      .then(fn)
      .then(
        (note) => ({
          ok: true,
          label,
          text: `  ok   ${label} (${note ? `${note}, ` : ''}${seconds(Date.now() - at)})`,
        }),
        (error) => {
          const output = `${String(error.stdout ?? '')}${String(error.stderr ?? '')}`.trim().slice(-6000)
          return {
            ok: false,
            label,
            text: `  FAIL ${label} (${seconds(Date.now() - at)})\n${output ? `${output.replace(/^/gm, '       ')}\n` : ''}       ${error.message}`,
          }
        },
      )
  }

  /** Prints the lines of `pending` checks in order; resolves whether all passed. */
  async function report(...pending) {
    const results = await Promise.all(pending)
    for (const result of results) {
      console.log(result.text)
      if (!result.ok) failures.push(result.label)
    }
    return results.every((result) => result.ok)
  }

  /** Prints the summary line and exits: 1 when any check failed. */
  function exit() {
    const took = seconds(Date.now() - started)
    console.log(
      failures.length
        ? `\n${failures.length} ${kind} checks failed (${took}):\n${failures.map((f) => `  - ${f}`).join('\n')}`
        : `\nall ${kind} checks passed (${took})`,
    )
    process.exit(failures.length ? 1 : 0)
  }

  return { check, report, exit }
}
