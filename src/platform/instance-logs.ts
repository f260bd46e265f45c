import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync
} from 'node:fs'
import { join } from 'node:path'

export interface InstanceLogOptions {
  /** <directory>/<microservice>/<instance>.log */
  directory: string
  /** Rotate when the current file would pass this size. */
  maxBytes: number
  /** Rotated files kept (<instance>.log.1 is the newest). */
  files: number
}

/** How long an instance's output is gathered before one append. */
const FLUSH_MS = 50

/** File names keep letters, digits and . _ @ # - of an instance id (name@version#generation.k). */
function fileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._@#-]/g, '_')}.log`
}

/**
 * What an instance printed, kept in files under the platform's var directory so that
 * `microservice logs` still shows it after the platform restarts. Each line is stamped with the
 * time it arrived and the instance's id. The platform's main thread also serves the gateway, so
 * output is gathered and appended once per FLUSH_MS (one write call however chatty the instance),
 * and at once before the file is read or the instance stops.
 */
export class InstanceLog {
  private readonly file: string
  private size: number
  private pending: string[] = []
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly options: InstanceLogOptions,
    microservice: string,
    private readonly id: string
  ) {
    const dir = join(options.directory, microservice)
    mkdirSync(dir, { recursive: true })
    this.file = join(dir, fileName(id))
    this.size = existsSync(this.file) ? statSync(this.file).size : 0
  }

  write(lines: readonly string[]): void {
    if (lines.length === 0) return
    const stamp = `${new Date().toISOString()} [${this.id}] `
    for (const l of lines) this.pending.push(stamp + l + '\n')
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref()
  }

  /** Appends what is gathered now. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    if (this.pending.length === 0) return
    const text = this.pending.join('')
    this.pending = []
    const bytes = Buffer.byteLength(text)
    if (this.size > 0 && this.size + bytes > this.options.maxBytes) this.rotate()
    try {
      appendFileSync(this.file, text)
      this.size += bytes
    } catch {
      // A full disk must not take the platform down with it; the lines are lost, but the process
      // keeps serving.
    }
  }

  private rotate(): void {
    const keep = this.options.files
    try {
      if (keep === 0) rmSync(this.file, { force: true })
      else {
        rmSync(`${this.file}.${keep}`, { force: true })
        for (let k = keep - 1; k >= 1; k--)
          if (existsSync(`${this.file}.${k}`)) renameSync(`${this.file}.${k}`, `${this.file}.${k + 1}`)
        renameSync(this.file, `${this.file}.1`)
      }
    } catch {
      // As above: rotation failing leaves the file growing, not the platform stopped.
    }
    this.size = 0
  }
}

/** The last `n` lines of a microservice's instances, current and rotated files, merged in time order. */
export function tailInstanceLogs(directory: string, microservice: string, n: number): string[] {
  const dir = join(directory, microservice)
  if (!existsSync(dir)) return []
  const lines: string[] = []
  // The rotated file first: lines of one millisecond in both files then keep their order (the sort
  // below is stable), whatever order the directory lists them in.
  const names = readdirSync(dir).filter((name) => /\.log(\.1)?$/.test(name))
  for (const name of names.sort((a, b) => Number(b.endsWith('.1')) - Number(a.endsWith('.1'))))
    lines.push(...lastLines(join(dir, name), n))
  // Lines start with an ISO time, so text order is time order; sort is stable within a file.
  return lines
    .sort((a, b) => (a.slice(0, 24) < b.slice(0, 24) ? -1 : a.slice(0, 24) > b.slice(0, 24) ? 1 : 0))
    .slice(-n)
}

/** The last n lines of a file, reading only its end (256 bytes a line is plenty; at most 4 MiB). */
function lastLines(file: string, n: number): string[] {
  const size = statSync(file).size
  const want = Math.min(size, Math.min(4 * 1024 * 1024, Math.max(64 * 1024, n * 256)))
  const buf = Buffer.alloc(want)
  const fd = openSync(file, 'r')
  try {
    readSync(fd, buf, 0, want, size - want)
  } finally {
    closeSync(fd)
  }
  const lines = buf.toString('utf8').split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  // The first line may be cut by the window, unless the window is the whole file.
  if (want < size) lines.shift()
  return lines.slice(-n)
}
