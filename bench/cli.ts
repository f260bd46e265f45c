// What the bench programs share on their command line.
import { writeFileSync } from 'node:fs'

/** The value after `--name`, or `fallback`. */
export function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`)
  return k > 0 ? process.argv[k + 1]! : fallback
}

/** Writes `value` as JSON to the file named by --json, when there is one. */
export function writeJsonIfAsked(value: unknown): void {
  if (process.argv.includes('--json')) writeFileSync(arg('json', ''), JSON.stringify(value, null, 2))
}

/** Runs a program's main when its file is the one node started; a failure is printed and exits 1. */
export function runMain(module: NodeJS.Module, main: () => Promise<void>): void {
  if (require.main !== module) return
  main().catch((err: unknown) => {
    console.error(err)
    process.exit(1)
  })
}
