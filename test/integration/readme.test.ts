// The README as a doc test: its walkthrough blocks (the quick start's calls, the greeter, the
// lifecycle commands, the edge) run as written against a platform started as `npm start` starts it,
// and every output the README shows under a command (its `# …` lines) must be what the command
// prints, `…` standing for anything on that line. A README line that drifts from what runs fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { freePort } from '../helpers/nginx'
import { startPlatformProcess } from '../helpers/platform-process'
import { ROOT } from '../helpers/root'

/** One command of a block and the output the README shows under it (none: not checked). */
export interface Step {
  command: string
  expected: string[]
  /** The README line the command starts on. */
  line: number
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
function walkthrough(readme: string): Step[] {
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

/** The shown output as a pattern: literal text, `…` for anything within a line. */
function pattern(expected: readonly string[]): RegExp {
  const escaped = expected.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/…/g, '[^\\n]*'))
  return new RegExp(`^${escaped.join('\n')}$`)
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', script], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err !== null && stdout === '' ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)
    )
  )
}

test('the README walkthrough runs as written and prints what the README shows', async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const walk = walkthrough(readme)
  assert.ok(walk.length >= 20, `${walk.length} steps found`)
  assert.ok(walk.filter((s) => s.expected.length > 0).length >= 10)
  const ports = { port: await freePort(), edgePort: await freePort(), adminPort: await freePort() }
  const p = startPlatformProcess(ports)
  const work = mkdtempSync(join(tmpdir(), 'readme-'))
  try {
    await p.ready()
    // The start-up line the README quotes, at this test's address.
    const started = /Once `npm start` prints `([^`]+)`/.exec(readme)?.[1]
    assert.ok(started !== undefined, 'the README quotes the start-up line')
    const startLine = pattern([started.replace('0.0.0.0:8082', `127.0.0.1:${ports.port}`)])
    // Logged by main once start() has returned, which is after /readyz turns 200: waited for, not assumed.
    const deadline = Date.now() + 10000
    while (
      !p
        .output()
        .split('\n')
        .some((l) => startLine.test(l))
    ) {
      assert.ok(Date.now() < deadline, `start-up line ${started} not in:\n${p.output().slice(0, 2000)}`)
      await new Promise((r) => setTimeout(r, 20))
    }
    // The README's addresses and paths, moved to this test's ports and a directory of its own.
    const local = (s: string): string =>
      s
        .replace(/localhost:8082/g, `127.0.0.1:${ports.port}`)
        .replace(/localhost:8000/g, `127.0.0.1:${ports.edgePort}`)
        .replace(/\/tmp\//g, `${work}/`)
    const script = walk.map((s, k) => `printf '\\n@@${k}@@\\n'\n${local(s.command)}`).join('\n')
    const env = {
      ...process.env,
      PLATFORM__PLATFORM__uploadDirectory: join(p.home, 'upload'),
      PLATFORM__PLATFORM__deploymentDirectory: join(p.home, 'deployments'),
      PLATFORM__PLATFORM__controlSocket: join(p.home, 'control.sock')
    }
    const outputs = (await bash(script, env)).split(/\n@@\d+@@\n/).slice(1)
    assert.equal(outputs.length, walk.length)
    const wrong: string[] = []
    for (const [k, s] of walk.entries()) {
      if (s.expected.length === 0) continue
      const got = outputs[k]!.replace(/\n$/, '')
      if (!pattern(s.expected.map(local)).test(got))
        wrong.push(
          `README.md:${s.line}: ${s.command.split('\n')[0]}\n  shows: ${s.expected.join('\n         ')}\n  prints: ${got.split('\n').join('\n          ')}`
        )
    }
    assert.deepEqual(wrong, [], wrong.join('\n\n'))
    t.diagnostic(
      `${walk.length} README commands run, ${walk.filter((s) => s.expected.length > 0).length} outputs compared`
    )
  } finally {
    p.signal('SIGKILL', true)
  }
})
