// `microservice edge nginx-config`'s TLS flags: what goes together, and what the file then holds (the
// nginx running it is tested in test/integration/security/tls.test.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { edgeCommand, EDGE_OPTIONS } from '../../../../src/cli/manifests/edge-command'
import { commandLine } from '../../../../src/cli/command-line'
import { defaultConfig } from '../../../../src/common/config/config'

const TLS = ['--tls-cert', '/etc/edge/tls.crt', '--tls-key', '/etc/edge/tls.key']

function written(args: string[]): string {
  const out = join(mkdtempSync(join(tmpdir(), 'edge-command-')), 'edge.conf')
  assert.equal(edgeCommand(commandLine('edge', ['nginx-config', '--out', out, ...args]), defaultConfig()), 0)
  return readFileSync(out, 'utf8')
}

test('client certificates: required by default with --client-ca, or requested; the verified subject sent on', () => {
  const required = written([...TLS, '--client-ca', '/etc/edge/clients-ca.crt'])
  assert.match(required, /ssl_client_certificate \/etc\/edge\/clients-ca\.crt;\n\s*ssl_verify_client on;/)
  assert.match(required, /map \$ssl_client_verify \$igw_certificate_subject \{\n\s*SUCCESS \$ssl_client_s_dn;/)
  assert.match(required, /proxy_set_header X-PLATFORM-Certificate-Subject \$igw_certificate_subject;/)
  assert.match(required, /error_page 496 = @certificate_missing;/)
  const requested = written([...TLS, '--client-ca', '/ca.crt', '--client-certificates', 'request'])
  assert.match(requested, /ssl_verify_client optional;/)
  // Without client certificates, a client's claimed subject never travels on.
  const plain = written(TLS)
  assert.doesNotMatch(plain, /ssl_client_certificate|igw_certificate_subject/)
  assert.match(plain, /proxy_set_header X-PLATFORM-Certificate-Subject "";/)
})

test('what goes together, said', () => {
  const refused = (args: string[], why: RegExp) => assert.throws(() => written(args), why)
  refused(['--client-ca', '/ca.crt'], /--client-ca needs --tls-cert and --tls-key/)
  refused([...TLS, '--client-certificates', 'require'], /--client-certificates needs --client-ca/)
  refused(
    [...TLS, '--client-ca', '/ca.crt', '--client-certificates', 'maybe'],
    /--client-certificates maybe: "require"/
  )
  // A plain h2c listener beside TLS that requires certificates would take calls without one.
  refused(
    [...TLS, '--client-ca', '/ca.crt', '--h2c-listen', '127.0.0.1:8001'],
    /--h2c-listen with --client-certificates require: the plain h2c listener would take calls without the certificate/
  )
  assert.match(
    written([...TLS, '--client-ca', '/ca.crt', '--client-certificates', 'request', '--h2c-listen', '8001']),
    /listen 8001 http2;/
  )
})

test('--help and -h list every option parseArgs accepts, one line each with its default; exit 0', () => {
  for (const flag of ['--help', '-h']) {
    const printed: string[] = []
    const log = console.log
    console.log = (s: string) => void printed.push(s)
    try {
      assert.equal(edgeCommand(commandLine('edge', ['nginx-config', flag]), defaultConfig()), 0)
    } finally {
      console.log = log
    }
    const lines = printed.join('\n').split('\n')
    for (const [name, o] of Object.entries(EDGE_OPTIONS)) {
      const line = lines.filter((l) => l.startsWith(`  --${name} `) || l.startsWith(`  --${name},`))
      assert.equal(line.length, 1, `--${name} has one line in the usage`)
      assert.ok(name === 'help' || /\(default: [^)]+\)$/.test(line[0]!), `--${name} says its default: ${line[0]}`)
      if ('default' in o) assert.match(line[0]!, new RegExp(`default: ${o.default}\\)$`))
    }
  }
  // A usage error shows the same list.
  assert.throws(
    () => edgeCommand(commandLine('edge', ['nginx-cfg']), defaultConfig()),
    (e: Error) => Object.keys(EDGE_OPTIONS).every((n) => e.message.includes(`--${n}`))
  )
})

test('--upstream-edge-tls: on by default with upstream TLS, off for edges left plain', () => {
  const up = ['--upstream-tls-ca', '/ca.crt', '--upstream-tls-name', 'gateway.test']
  assert.match(written(up), /proxy_pass https:\/\/invocation_edges;/)
  assert.match(written([...up, '--upstream-edge-tls', 'off']), /proxy_pass http:\/\/invocation_edges;/)
  assert.match(written([...up, '--upstream-edge-tls', 'off']), /proxy_pass https:\/\/invocation_gateways\/;/)
  assert.match(written([]), /proxy_pass http:\/\/invocation_edges;/)
  assert.throws(() => written(['--upstream-edge-tls', 'on']), /--upstream-edge-tls on needs --upstream-tls-ca/)
  assert.throws(() => written([...up, '--upstream-edge-tls', 'yes']), /--upstream-edge-tls yes: "on" or "off"/)
})
