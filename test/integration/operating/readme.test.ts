// The README as a doc test: its walkthrough blocks (the quick start's calls, the greeter, the
// lifecycle commands, the edge, the bench) run as written, in one shell, against a platform started
// as `npm start` starts it. Every command must exit 0 and print nothing on stderr, and print on
// stdout what the README shows under it (its `# …` lines, `…` standing for anything on that line and
// a line of `…` alone for any lines), or nothing when it shows nothing. A README line that drifts
// from what runs, a misspelled subcommand among them, fails here. (No step of the README fails on
// purpose; one that should would need a way to show its exit status here first.)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { freePort } from '../../helpers/nginx'
import { startPlatformProcess } from '../../helpers/processes/platform-process'
import { pattern, runSteps, verdict, walkthrough } from '../../helpers/inputs/readme-steps'
import { ROOT } from '../../helpers/root'

test('the README walkthrough runs as written and prints what the README shows', async (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const walk = walkthrough(readme)
  assert.ok(walk.length >= 22, `${walk.length} steps found`)
  // Those that show nothing print nothing: creating the greeter's files.
  assert.ok(walk.filter((s) => s.expected.length > 0).length >= 18)
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
    const env = {
      ...process.env,
      PLATFORM__PLATFORM__uploadDirectory: join(p.home, 'upload'),
      PLATFORM__PLATFORM__deploymentDirectory: join(p.home, 'deployments'),
      PLATFORM__PLATFORM__controlSocket: join(p.home, 'control.sock')
    }
    const { ran, shell } = await runSteps(
      walk.map((s) => local(s.command)),
      { cwd: ROOT, env }
    )
    const wrong: string[] = []
    for (const [k, s] of walk.entries()) {
      const problems = verdict(s, ran[k]!, local)
      if (problems.length > 0)
        wrong.push(
          `README.md:${s.line}: ${s.command.split('\n')[0]}${problems.map((x) => `\n  ${x.replace(/\n/g, '\n  ')}`).join('')}`
        )
    }
    assert.deepEqual(wrong, [], `${wrong.join('\n\n')}${shell === '' ? '' : `\n\nthe shell: ${shell}`}`)
    t.diagnostic(
      `${walk.length} README commands run, exit status and stderr checked; ${walk.filter((s) => s.expected.length > 0).length} outputs compared, the others empty`
    )
  } finally {
    p.signal('SIGKILL', true)
  }
})
