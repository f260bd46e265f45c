import { statSync } from 'node:fs'

/**
 * A stamp of files (device, inode, size and modification time of each, through symbolic links): it
 * changes when a file is replaced in place, renamed over, or when a mounted Secret's `..data` link
 * moves, as cert-manager and certbot renew certificates. A missing file stamps as its error code.
 */
export function filesStamp(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const s = statSync(file)
        return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`
      } catch (err) {
        return (err as NodeJS.ErrnoException).code ?? 'error'
      }
    })
    .join(' ')
}
