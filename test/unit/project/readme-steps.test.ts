// The README test's parts on their own (test/integration/operating/readme.test.ts runs them on the README):
// how a block splits into commands and shown output, what `…` matches, and that a step's exit status
// and stderr reach the verdict, so that a failing README command cannot pass unseen.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { pattern, runSteps, steps, verdict, type Step } from '../../helpers/inputs/readme-steps'

test('steps: shown output under a command, headings after a blank line, heredocs and continuations kept whole', () => {
  const block = [
    '# a heading',
    'curl -s localhost:8082/a',
    '# {"result":6}',
    '',
    '# another heading',
    "cat > /tmp/x.js <<'EOF'",
    '# inside the heredoc, not output',
    'EOF',
    'curl -s localhost:8082/b \\',
    "  -d '[]'",
    '# 6',
    'microservice list   # a trailing comment',
    '# shown',
    '#',
    '#   indented'
  ]
  assert.deepEqual(steps(block, 10), [
    { command: 'curl -s localhost:8082/a', expected: ['{"result":6}'], line: 11 },
    { command: "cat > /tmp/x.js <<'EOF'\n# inside the heredoc, not output\nEOF", expected: [], line: 15 },
    { command: "curl -s localhost:8082/b \\\n  -d '[]'", expected: ['6'], line: 18 },
    { command: 'microservice list   # a trailing comment', expected: ['shown', '', '  indented'], line: 21 }
  ])
})

test('pattern: literal text, … within one line, a line of … alone for any lines, the whole output', () => {
  assert.ok(pattern(['pid …, heap 1 MB']).test('pid 42, heap 1 MB'))
  assert.ok(!pattern(['pid …, heap 1 MB']).test('pid 42\n, heap 1 MB'), '… stays within its line')
  assert.ok(!pattern(['a.c (x)']).test('abc (x)'), 'regular-expression characters are literal')
  assert.ok(pattern(['{', '…', '}']).test('{\n  "a": 1,\n  "b": 2\n}'))
  assert.ok(!pattern(['{', '…', '}']).test('{\n  "a": 1'), 'the end is still compared')
  assert.ok(!pattern(['deployed greeter 1.0.0']).test('deployed greeter 1.0.0\nmore'), 'no line more')
  assert.ok(!pattern(['deployed greeter 1.0.0']).test('re-deployed greeter 1.0.0'), 'no text before')
})

test("runSteps and verdict: state carries over, each step's exit status and stderr are its own", async () => {
  const commands = [
    'export GREETING=hi',
    'cd /',
    'echo "$GREETING $PWD"',
    "cat <<'EOF'\nfrom a heredoc\nEOF",
    'cat', // reads stdin: empty, so it ends
    'ls /no-such-directory-of-the-readme-test',
    'echo progress >&2',
    'microservice-misspelled list',
    'exit 3',
    'echo after'
  ]
  const { ran, shell } = await runSteps(commands, { cwd: tmpdir(), env: process.env })
  assert.equal(shell, '')
  assert.deepEqual(ran.slice(0, 5), [
    { out: '', err: '', code: 0 },
    { out: '', err: '', code: 0 },
    { out: 'hi /\n', err: '', code: 0 },
    { out: 'from a heredoc\n', err: '', code: 0 },
    { out: '', err: '', code: 0 }
  ])
  assert.equal(ran[5]!.code, 2)
  assert.match(ran[5]!.err, /no-such-directory/)
  assert.deepEqual(ran[6], { out: '', err: 'progress\n', code: 0 })
  assert.equal(ran[7]!.code, 127)
  assert.deepEqual([ran[8]!.code, ran[9]!.code], [null, null], 'an exit ends the shell: the rest never ran')

  const step = (expected: string[]): Step => ({ command: '…', expected, line: 1 })
  assert.deepEqual(verdict(step([]), ran[0]!), [])
  assert.deepEqual(verdict(step(['hi …']), ran[2]!), [])
  assert.deepEqual(verdict(step(['hello …']), ran[2]!), ['shows:  hello …\nprints: hi /'])
  assert.deepEqual(verdict(step([]), ran[2]!), ['shows:  (nothing)\nprints: hi /'], 'showing nothing is a claim')
  const failed = verdict(step([]), ran[5]!)
  assert.equal(failed[0], 'exits 2')
  assert.match(failed[1]!, /^prints on stderr: .*no-such-directory/)
  assert.deepEqual(verdict(step([]), ran[6]!), ['prints on stderr: progress'])
  assert.equal(verdict(step([]), ran[7]!)[0], 'exits 127')
  assert.deepEqual(verdict(step(['after']), ran[9]!), ['did not run (an earlier step ended the shell)'])
})
