// How `microservice list` and `status` print a microservice.
import type { MicroserviceStatus } from '../platform/manager'

export function statusText(s: MicroserviceStatus): string {
  const versions =
    s.versions.length > 1 ? ` (instances of ${s.versions.length} versions: ${s.versions.join(', ')})` : ''
  // A nativeApp, the default, is what the gateway calls; a servletApp is named as such (--json has both).
  const type = s.type === 'servletApp' ? ' (servletApp: runs, not exposed by the gateway)' : ''
  const lines = [
    `${s.name} ${s.version}${type}: ${s.desired === 'stopped' ? 'stopped' : s.unavailable === null ? 'available' : `unavailable (${s.unavailable})`}, ${s.inflight} calls in flight${versions}`
  ]
  for (const i of s.instances) {
    if (i.remote) {
      lines.push(
        `  ${i.id}: remote, ${i.state}${i.version !== null ? `, version ${i.version}` : ''}${i.message !== '' ? ` - ${i.message}` : ''}`
      )
      continue
    }
    lines.push(
      `  ${i.id}: ${i.state}${i.pid !== null ? `, pid ${i.pid}` : ''}${i.port > 0 ? `, port ${i.port}` : ''}, heap ${i.heapMb} MB, ${i.restarts} restarts (${i.memoryRestarts} for memory)${i.message !== '' ? ` - ${i.message}` : ''}`
    )
  }
  return lines.join('\n')
}
