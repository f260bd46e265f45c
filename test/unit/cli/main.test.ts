// The CLI as one pattern (docs/development.md, "One place per concern"): a command is a file commands/NAME-command.ts
// (manifests/NAME-command.ts for one that writes an operator's configuration) exporting NAMECommand,
// main.ts dispatches to it by name, and the usage text lists it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { COMMANDS, USAGE, commandUsage } from '../../../src/cli/main'
import { ROOT } from '../../helpers/root'

const DIR = join(ROOT, 'src', 'cli', 'commands')
const MANIFESTS = join(ROOT, 'src', 'cli', 'manifests')

test('each file of cli/commands/ is one command, NAME-command.ts exporting NAMECommand, dispatched by main.ts', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  const named = files.map((f) => /^([a-z]+)-command\.ts$/.exec(f)?.[1] ?? `(not a command's name: ${f})`)
  // manifests/ holds what the configuration commands write beside the commands themselves.
  const writers = readdirSync(MANIFESTS)
    .map((f) => /^([a-z]+)-command\.ts$/.exec(f)?.[1])
    .filter((n) => n !== undefined)
  assert.deepEqual(writers.sort(), ['edge', 'kube', 'monitoring'])
  assert.deepEqual([...named, ...writers].sort(), Object.keys(COMMANDS).sort())
  for (const name of [...named, ...writers])
    assert.match(
      readFileSync(join(writers.includes(name) ? MANIFESTS : DIR, `${name}-command.ts`), 'utf8'),
      new RegExp(`^export (const|(async )?function) ${name}Command\\b`, 'm'),
      `${name}-command.ts exports ${name}Command`
    )
})

test("the usage lists every command main.ts dispatches, and each command's --help finds its lines", () => {
  const listed = [...USAGE.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!)
  assert.deepEqual([...new Set(listed)].sort(), Object.keys(COMMANDS).sort())
  for (const name of Object.keys(COMMANDS)) assert.notEqual(commandUsage(name), null, name)
})
