// A real DNS server for discovery tests: dnsmasq (Debian's package, installed when missing) on
// 127.0.0.1 and a free port, answering one name from a hosts file that `publish` rewrites (dnsmasq
// reads it again on SIGHUP), with TTL 0 so every lookup sees the current answer.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Resolver } from 'node:dns/promises'
import { freePort } from '../nginx'
import { until } from '../platform'
import { ROOT } from '../root'

export interface RunningDns {
  /** `127.0.0.1:port`, for MICROSERVICES.dnsServers. */
  readonly server: string
  /** The addresses the name resolves to from now on. */
  publish(addresses: string[]): void
  stop(): void
}

export async function startDns(name: string, first: string[]): Promise<RunningDns> {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'dnsmasq:dnsmasq-base'], { stdio: 'inherit' })
  const dir = mkdtempSync(join(tmpdir(), 'dns-'))
  const hostsFile = join(dir, 'hosts')
  const write = (addresses: string[]): void => writeFileSync(hostsFile, addresses.map((a) => `${a} ${name}\n`).join(''))
  // The first answer is in the file before dnsmasq starts (a SIGHUP before it has its handlers would end it).
  write(first)
  const port = await freePort()
  const dns: ChildProcess = spawn(
    'dnsmasq',
    [
      '--keep-in-foreground',
      `--port=${port}`,
      '--listen-address=127.0.0.1',
      '--bind-interfaces',
      '--no-resolv',
      '--no-hosts',
      `--addn-hosts=${hostsFile}`,
      '--local-ttl=0',
      `--pid-file=${join(dir, 'dnsmasq.pid')}`,
      '--user=root'
    ],
    { stdio: 'ignore' }
  )
  const resolver = new Resolver()
  resolver.setServers([`127.0.0.1:${port}`])
  await until(
    async () => (await resolver.resolve4(name).catch(() => [])).length === first.length,
    10000,
    'dnsmasq answering'
  )
  return {
    server: `127.0.0.1:${port}`,
    publish(addresses) {
      write(addresses)
      dns.kill('SIGHUP')
    },
    stop() {
      dns.kill('SIGKILL')
    }
  }
}
