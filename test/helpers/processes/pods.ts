// Network namespaces playing a cluster's pods: a bridge in this namespace (the node's pod network)
// and, per pod, a namespace of its own with one veth and one address on the bridge's subnet, as a
// CNI plugin gives a pod. A process started in a pod sees only its own interfaces; the gateway (this
// test process) reaches it across the bridge, as a gateway pod reaches a microservice pod.
import { execFileSync } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { join } from 'node:path'
import { ROOT } from '../root'

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] })
}

export class PodNetwork {
  /** Short random names (interface names have 15 characters at most): tests of other runs do not collide. */
  private readonly id = randomInt(0x1000, 0xffff).toString(16)
  readonly bridge = `igw${this.id}br`
  /** 10.x.y.0/24 with random x and y: a subnet no other run on this machine is likely to have. */
  private readonly prefix = `10.${randomInt(200, 250)}.${randomInt(1, 250)}`
  private readonly pods = new Set<number>()

  /** Needs root (CAP_NET_ADMIN) and iproute2, installed from Debian when missing. */
  constructor() {
    execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'ip:iproute2'], { stdio: 'inherit' })
    try {
      ip('link', 'add', this.bridge, 'type', 'bridge')
    } catch (err) {
      const why = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? (err as Error).message
      throw new Error(
        `network namespaces playing pods need root (CAP_NET_ADMIN) to add a bridge: ${why}. Run the tests as root.`
      )
    }
    ip('addr', 'add', `${this.prefix}.1/24`, 'dev', this.bridge)
    ip('link', 'set', this.bridge, 'up')
  }

  private ns(n: number): string {
    return `igw-${this.id}-pod${n}`
  }

  /** Creates pod `n` (2..254) and returns its address. */
  add(n: number): string {
    const ns = this.ns(n)
    const veth = `igw${this.id}v${n}`
    ip('netns', 'add', ns)
    this.pods.add(n)
    ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns)
    ip('link', 'set', veth, 'master', this.bridge, 'up')
    ip('-n', ns, 'addr', 'add', `${this.address(n)}/24`, 'dev', 'eth0')
    ip('-n', ns, 'link', 'set', 'eth0', 'up')
    ip('-n', ns, 'link', 'set', 'lo', 'up')
    return this.address(n)
  }

  /** Pod `n`'s network namespace as a path, for `podman run --network ns:PATH`. */
  netnsPath(n: number): string {
    return `/run/netns/${this.ns(n)}`
  }

  address(n: number): string {
    return `${this.prefix}.${n}`
  }

  /** The command line that runs `argv` inside pod `n` (ip netns exec replaces itself with it: same pid). */
  exec(n: number, argv: string[]): { command: string; args: string[] } {
    return { command: 'ip', args: ['netns', 'exec', this.ns(n), ...argv] }
  }

  /** The processes left in pod `n`. */
  pids(n: number): string[] {
    return execFileSync('ip', ['netns', 'pids', this.ns(n)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l !== '')
  }

  /** Pod `n`'s network is gone at once (its veth deleted), as when its node fails; its processes go on. */
  cut(n: number): void {
    ip('link', 'del', `igw${this.id}v${n}`)
  }

  /** Removes pod `n`'s interfaces and namespace (its processes must have been stopped). */
  remove(n: number): void {
    if (!this.pods.delete(n)) return
    try {
      ip('link', 'del', `igw${this.id}v${n}`)
    } catch {
      // gone with its namespace already, or cut
    }
    ip('netns', 'del', this.ns(n))
  }

  close(): void {
    for (const n of [...this.pods]) this.remove(n)
    try {
      ip('link', 'del', this.bridge)
    } catch {
      // never made
    }
  }
}
