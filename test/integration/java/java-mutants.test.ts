// Mutation testing of the Java host's dispatch, by hand (PIT is in neither Debian nor npm): each mutant
// below is one edit of java/host that a test must catch (the remotely-enabled list, the argument count,
// the serializer a sequence chooses). The mutated file is compiled alone against the built host and put
// first on the class path of a JVM that serves the package of nested bean names over TCP; the checks
// speak the protocol to it as a gateway does. Unchanged, every check passes; with each mutant, the
// check it names fails (docs/development.md, "Mutation testing").
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { tmpdir } from 'node:os'
import { ROOT } from '../../helpers/root'
import { hostClassPath } from '../../helpers/java/java-package'
import { nestedBeans } from '../../helpers/java/java-beans'
import { openSession, rmc } from '../../helpers/processes/host-session'
import { freePort } from '../../helpers/nginx'
import { javaHostEnv, JAVA_MAIN_CLASS } from '../../../src/microservice/host/java-host'

const SECRET = 'the secret of the Java mutants'

interface Mutant {
  /** What the edit breaks, and the check that must fail. */
  name: string
  file: string
  from: string
  to: string
  caughtBy: Check
}

type Check = 'enabled list' | 'whole names' | 'argument count' | 'serializer choice' | 'unknown sequence'

const INVOKER = 'java/host/platform/host/Invoker.java'
const MUTANTS: Mutant[] = [
  {
    name: 'the Invoker ignores remotelyEnabled',
    file: INVOKER,
    from: 'if (svc == null || !svc.remotelyEnabled)',
    to: 'if (svc == null)',
    caughtBy: 'enabled list'
  },
  {
    name: 'the enabled list matched as substrings (find) instead of whole names (matches)',
    file: 'java/host/platform/host/Microservice.java',
    from: 'p.matcher(beanName).matches()',
    to: 'p.matcher(beanName).find()',
    caughtBy: 'whole names'
  },
  {
    name: 'too few arguments let through',
    file: INVOKER,
    from: 'if (inv.getArgumentsCount() != params)',
    to: 'if (inv.getArgumentsCount() > params)',
    caughtBy: 'argument count'
  },
  {
    name: "every sequence read with beta JSON's codec",
    file: 'java/host/platform/host/Serializers.java',
    from: 'return bySequence.get(sequence);',
    to: 'return bySequence.containsKey(sequence) ? bySequence.get("betaParamArrayJsonInOutSequence") : null;',
    caughtBy: 'serializer choice'
  },
  {
    name: "alpha JSON's XStream built without Jettison's driver",
    file: 'java/host/platform/host/Serializers.java',
    from: 'alpha(context, "alphaJsonSerializer", true,',
    to: 'alpha(context, "alphaJsonSerializer", false,',
    caughtBy: 'serializer choice'
  },
  {
    name: 'an unknown sequence served by a default codec',
    file: 'java/host/platform/host/Serializers.java',
    from: 'return bySequence.get(sequence);',
    to: 'return bySequence.getOrDefault(sequence, bySequence.get("betaParamArrayJsonInOutSequence"));',
    caughtBy: 'unknown sequence'
  }
]

/** Each check against a running host: null when it holds, else what it saw. */
async function checks(port: number): Promise<Record<Check, string | null>> {
  const session = await openSession(port, SECRET)
  try {
    const enabled = (session.catalog.services ?? []).filter((s) => s.remotelyEnabled === true).map((s) => s.name)
    const beta = 'betaParamArrayJsonInOutSequence'
    const r = await session.call([
      rmc(1, 'calc', 'twice', beta, ['21']),
      rmc(2, 'calculator', 'twice', beta, ['21']),
      rmc(3, 'precalc', 'twice', beta, ['21']),
      rmc(4, 'calc', 'twice', beta, ['21', '1']),
      rmc(5, 'calc', 'twice', beta, []),
      rmc(6, 'calc', 'twice', 'alphaParamArrayJsonInOutSequence', ['{"int":21}']),
      rmc(7, 'calc', 'twice', 'alphaParamArrayXmlInOutSequence', ['<int>21</int>']),
      rmc(8, 'calc', 'twice', 'betaParamArrayXmlInOutSequence', ['<Integer>21</Integer>']),
      rmc(9, 'calc', 'twice', 'gammaParamArrayJsonInOutSequence', ['21'])
    ])
    const said = (id: number): string => {
      const x = r.get(id)!
      return x.error ? `${x.error.code}: ${x.error.detail}` : Buffer.from(x.body ?? []).toString()
    }
    const unless = (ok: boolean, seen: string): string | null => (ok ? null : seen)
    const code = (id: number): string | null | undefined => r.get(id)!.error?.code
    return {
      'enabled list': unless(
        said(1) === '42' && code(2) === 'UNKNOWN_SERVICE',
        `calc ${said(1)}; calculator ${said(2)}`
      ),
      'whole names': unless(
        JSON.stringify(enabled) === '["calc"]' && code(2) === 'UNKNOWN_SERVICE' && code(3) === 'UNKNOWN_SERVICE',
        `enabled ${JSON.stringify(enabled)}; calculator ${said(2)}; precalc ${said(3)}`
      ),
      'argument count': unless(
        code(4) === 'ARGUMENT_COUNT' && code(5) === 'ARGUMENT_COUNT',
        `two arguments: ${said(4)}; none: ${said(5)}`
      ),
      'serializer choice': unless(
        said(6) === '{"int":42}' && said(7) === '<int>42</int>' && said(8) === '<Integer>42</Integer>',
        `alpha JSON ${said(6)}; alpha XML ${said(7)}; beta XML ${said(8)}`
      ),
      'unknown sequence': unless(code(9) === 'UNKNOWN_SEQUENCE', said(9))
    }
  } finally {
    session.close()
  }
}

describe("the Java host's dispatch, mutated by hand", () => {
  let classPath = ''
  let dir = ''
  const scratch = mkdtempSync(join(tmpdir(), 'java-mutants-'))
  let running: ChildProcess | null = null

  before(() => {
    classPath = hostClassPath()
    dir = nestedBeans()
  })
  after(() => {
    running?.kill('SIGKILL')
    rmSync(scratch, { recursive: true, force: true })
  })

  /** A JVM of the host with `first` ahead of its class path, serving the package; its checks' answers. */
  async function served(first: string | null): Promise<Record<Check, string | null>> {
    const port = await freePort()
    const cp = first === null ? classPath : `${first}:${classPath}`
    const env = javaHostEnv({ listen: `tcp:127.0.0.1:${port}`, secret: SECRET, managed: false })
    const child = spawn('java', ['-XX:TieredStopAtLevel=1', '-cp', cp, JAVA_MAIN_CLASS, dir], {
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    running = child
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    try {
      for (let k = 0; k < 300 && !out.includes('listening on'); k++) {
        if (child.exitCode !== null) throw new Error(`the host exited: ${out}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      assert.ok(out.includes('listening on'), `the host did not listen in 15 s: ${out}`)
      return await checks(port)
    } finally {
      child.kill('SIGTERM')
      await exited
      running = null
    }
  }

  test('unchanged, the host passes every check', async () => {
    const seen = await served(null)
    assert.deepEqual(seen, {
      'enabled list': null,
      'whole names': null,
      'argument count': null,
      'serializer choice': null,
      'unknown sequence': null
    })
  })

  for (const [k, m] of MUTANTS.entries())
    test(`mutant ${k + 1}: ${m.name}: caught by "${m.caughtBy}"`, async () => {
      const source = readFileSync(join(ROOT, m.file), 'utf8')
      assert.equal(source.split(m.from).length, 2, `${m.file} holds "${m.from}" exactly once`)
      const src = join(scratch, `src-${k}`, m.file.replace(/^java\/host\//, ''))
      const classes = join(scratch, `classes-${k}`)
      mkdirSync(dirname(src), { recursive: true })
      mkdirSync(classes)
      writeFileSync(src, source.replace(m.from, m.to))
      execFileSync(
        'javac',
        ['-nowarn', '-encoding', 'UTF-8', '--release', '17', '-d', classes, '-cp', classPath, src],
        {
          stdio: ['ignore', 'ignore', 'pipe']
        }
      )
      const seen = await served(classes)
      assert.notEqual(seen[m.caughtBy], null, `the mutant survived: ${JSON.stringify(seen)}`)
    })
})
