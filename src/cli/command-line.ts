import { CliError } from './cli-error'

/** One command's line, as main.ts hands it to the command's file (commands/NAME-command.ts). */
export interface CommandLine {
  /** The command's name, as typed. */
  readonly name: string
  /** What followed the name, --json and --force taken out. */
  readonly args: readonly string[]
  /** What followed the name, as typed (bench reads its own options, --json FILE among them). */
  readonly raw: readonly string[]
  /** list, status and logs print what the control socket answers, as JSON. */
  readonly json: boolean
  readonly force: boolean
}

/** A command of `microservice`: its exit code. */
export type Command = (line: CommandLine) => Promise<number> | number

/**
 * The line of command `name` from what followed it as typed; --json and --force count wherever they
 * stand in `all` (before the name too).
 */
export function commandLine(name: string, raw: readonly string[], all: readonly string[] = raw): CommandLine {
  return {
    name,
    args: raw.filter((x) => x !== '--json' && x !== '--force'),
    raw,
    json: all.includes('--json'),
    force: all.includes('--force')
  }
}

/** The command's first argument, or its usage as the error. */
export function firstArgument(line: CommandLine, what: string): string {
  const a = line.args[0]
  if (a === undefined) throw new CliError(`usage: microservice ${line.name} <${what}>`)
  return a
}

/** Prints `value` as JSON with --json, else as `text` says. */
export function print(line: CommandLine, value: unknown, text: () => string): void {
  console.log(line.json ? JSON.stringify(value, null, 2) : text())
}
