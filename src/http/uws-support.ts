/**
 * The uWebSockets.js build this project depends on (20.30.0, the newest that loads with this
 * machine's glibc) ships binaries for Node 20 only. On another major it loads but fails later
 * (`us_socket_local_port is not a function` at listen), so the gateway checks first and says why.
 */
export const UWS_SUPPORTED_NODE_MAJORS: readonly number[] = [20]

export function uwsSupportError(nodeVersion: string = process.versions.node): string | null {
  const major = Number(nodeVersion.split('.')[0])
  if (UWS_SUPPORTED_NODE_MAJORS.includes(major)) return null
  return `the uWebSockets.js build in use supports Node ${UWS_SUPPORTED_NODE_MAJORS.join(', ')} only; this is Node ${nodeVersion} (install Node 20)`
}
