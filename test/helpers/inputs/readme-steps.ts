// The README's walkthrough as steps: a command, the output the README shows under it, and how the
// test runs them and judges what each did. Kept apart from the test so that the parsing, the
// running and the verdict are unit-tested on their own (test/unit/project/readme-steps.test.ts).
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

/** One command of a block and the output the README shows under it (none: it must print nothing). */
export interface Step {
  command: string
  expected: string[]
  /** The README line the command starts on. */
  line: number
}

/** What one step did. `code` is null when the step never ran (an earlier step ended the shell). */
export interface Ran {
  out: string
  err: string
  code: number | null
}

/**
 * The steps of a sh block. A `#` line right under a command (or under its shown output) is output;
 * one after a blank line or at the start is a heading. A heredoc and `\` continuations belong to
 * their command.
 */
export function steps(lines: readonly string[], firstLine: number): Step[] {
  const out: Step[] = []
  let current: Step | null = null
  for (let k = 0; k < lines.length; k++) {
    const text = lines[k]!
    if (text.trim() === '') {
      current = null
      continue
    }
    if (text.startsWith('#')) {
      if (current !== null) current.expected.push(text.replace(/^# ?/, ''))
      continue
    }
    current = { command: text, expected: [], line: firstLine + k }
    out.push(current)
    const heredoc = /<<'(\w+)'/.exec(text)
    while (heredoc !== null && lines[k] !== heredoc[1] && k + 1 < lines.length) current.command += `\n${lines[++k]}`
    while (current.command.endsWith('\\') && k + 1 < lines.length) current.command += `\n${lines[++k]}`
  }
  return out
}

/** The ```sh blocks that talk to a running platform: calls on :8082 or :8000, or the microservice command. */
export function walkthrough(readme: string): Step[] {
  const all: Step[] = []
  const lines = readme.split('\n')
  for (let k = 0; k < lines.length; k++) {
    if (lines[k] !== '```sh') continue
    const start = k + 1
    while (lines[++k] !== '```') {
      /* to the block's end */
    }
    const block = lines.slice(start, k)
    const live = block.some((l) => /localhost:80(82|00)|^microservice /.test(l))
    if (live && !block.some((l) => /^(npm|kubectl|scripts\/)/.test(l))) all.push(...steps(block, start + 1))
  }
  return all
}

/**
 * The shown output as a pattern: literal text, `…` for anything within a line, and a line of `…`
 * alone for any lines (a long output shown by its start and end).
 */
export function pattern(expected: readonly string[]): RegExp {
  const escaped = expected.map((l) =>
    l === '…' ? '[\\s\\S]*' : l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/…/g, '[^\\n]*')
  )
  return new RegExp(`^${escaped.join('\n')}$`)
}

/**
 * Runs the commands in order in one bash, so that `export`, `cd` and variables carry over as they
 * would in the reader's terminal, each with its stdout, stderr and exit status kept apart (files of
 * its own) and stdin empty, so that a command that waits for input ends instead of hanging the test.
 */
export function runSteps(
  commands: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv }
): Promise<{ ran: Ran[]; shell: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'readme-steps-'))
  const file = (k: number, what: string): string => `'${join(dir, `${k}.${what}`)}'`
  // The group's newline before `}` ends a heredoc's last line or a trailing comment.
  const script = commands
    .map((c, k) => `{\n${c}\n} </dev/null >${file(k, 'out')} 2>${file(k, 'err')}\necho $? >${file(k, 'code')}`)
    .join('\n')
  return new Promise((resolve) =>
    // The shell's own stderr: what it said when it stopped early (a syntax error, an `exit`).
    execFile('bash', ['-c', script], { cwd: options.cwd, env: options.env }, (_err, _stdout, shell) =>
      resolve({
        shell,
        ran: commands.map((_, k) => {
          const read = (what: string): string | null => {
            try {
              return readFileSync(join(dir, `${k}.${what}`), 'utf8')
            } catch (err) {
              // A step the shell never reached has no files.
              if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
              throw err
            }
          }
          const code = read('code')
          return { out: read('out') ?? '', err: read('err') ?? '', code: code === null ? null : Number(code) }
        })
      })
    )
  )
}

/**
 * What is wrong with what a step did, none when it is what the README promises: it exits 0, prints
 * nothing on stderr, and its stdout is the output shown under it (nothing when none is shown).
 */
export function verdict(step: Step, ran: Ran, local: (s: string) => string = (s) => s): string[] {
  if (ran.code === null) return ['did not run (an earlier step ended the shell)']
  const wrong: string[] = []
  if (ran.code !== 0) wrong.push(`exits ${ran.code}`)
  if (ran.err !== '') wrong.push(`prints on stderr: ${indent(ran.err)}`)
  const got = ran.out.replace(/\n$/, '')
  if (step.expected.length === 0 ? got !== '' : !pattern(step.expected.map(local)).test(got))
    wrong.push(
      `shows:  ${step.expected.length === 0 ? '(nothing)' : indent(step.expected.join('\n'))}\nprints: ${got === '' ? '(nothing)' : indent(got)}`
    )
  return wrong
}

function indent(text: string): string {
  return text.replace(/\n$/, '').split('\n').join('\n        ')
}
