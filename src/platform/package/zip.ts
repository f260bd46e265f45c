import { createWriteStream, mkdirSync, readdirSync, statSync, lstatSync } from 'node:fs'
import { join, relative, sep, dirname, resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Transform, type TransformCallback } from 'node:stream'
import yazl from 'yazl'
import yauzl from 'yauzl'
import { InternalError, errorMessage } from '../../common/errors/internal'

/** Bounds on an uploaded package, against zip bombs and junk. */
export interface UnpackLimits {
  maxEntries: number
  maxEntryBytes: number
  maxTotalBytes: number
}

export const DEFAULT_UNPACK_LIMITS: Readonly<UnpackLimits> = Object.freeze({
  maxEntries: 10_000,
  maxEntryBytes: 64 * 2 ** 20,
  maxTotalBytes: 256 * 2 ** 20
})

/** A refusal whose message says exactly why; nothing was deployed. */
export class PackageError extends InternalError {
  constructor(message: string) {
    super('IGW_PACKAGE', message)
  }
}

/**
 * Zips `dir` with the directory itself at the top level, named `topName`. Links are refused.
 * `extra` adds generated files (name inside the directory → content), replacing files of that name.
 */
export async function zipDirectory(
  dir: string,
  topName: string,
  outFile: string,
  extra: ReadonlyMap<string, string> = new Map()
): Promise<number> {
  const zip = new yazl.ZipFile()
  let files = 0
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const st = lstatSync(p)
      if (st.isSymbolicLink()) throw new PackageError(`${p} is a link; a package holds plain files only`)
      const inDir = relative(dir, p).split(sep).join('/')
      const inZip = `${topName}/${inDir}`
      if (extra.has(inDir)) continue
      if (st.isDirectory()) {
        zip.addEmptyDirectory(inZip)
        walk(p)
      } else if (st.isFile()) {
        zip.addFile(p, inZip, { mode: 0o100644 })
        files++
      }
    }
  }
  if (!statSync(dir).isDirectory()) throw new PackageError(`${dir} is not a directory`)
  walk(dir)
  for (const [name, content] of extra) {
    zip.addBuffer(Buffer.from(content), `${topName}/${name}`, { mode: 0o100644 })
    files++
  }
  zip.end()
  await pipeline(zip.outputStream, createWriteStream(outFile))
  return files
}

function open(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolvePromise, reject) => {
    yauzl.open(
      file,
      // decodeStrings: false: entry names come as bytes and entryName() below is the one guard on
      // them (yauzl's own check would otherwise stand in front of ours and hide whether ours works).
      { lazyEntries: true, autoClose: true, decodeStrings: false, validateEntrySizes: true },
      (err, zip) => {
        if (err !== null || zip === undefined)
          reject(new PackageError(`not a readable zip archive: ${err?.message ?? 'unknown error'}`))
        else resolvePromise(zip)
      }
    )
  })
}

/** Counts bytes and stops a stream that inflates beyond what its entry (or the package) may hold. */
class Meter extends Transform {
  constructor(
    private readonly name: string,
    private readonly limits: UnpackLimits,
    private readonly total: { bytes: number }
  ) {
    super()
  }
  private bytes = 0
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length
    this.total.bytes += chunk.length
    if (this.bytes > this.limits.maxEntryBytes)
      cb(new PackageError(`${this.name} inflates beyond ${this.limits.maxEntryBytes} bytes`))
    else if (this.total.bytes > this.limits.maxTotalBytes)
      cb(new PackageError(`the package inflates beyond ${this.limits.maxTotalBytes} bytes`))
    else cb(null, chunk)
  }
}

/**
 * The entry's name, refused unless it is a plain relative path: UTF-8 (flag bit 11) or ASCII, no NUL,
 * no backslash, not absolute, no empty, '.' or '..' segment. This is the guard against zip-slip.
 */
export function entryName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer
  const utf8 = (entry.generalPurposeBitFlag & 0x800) !== 0
  if (!utf8 && raw.some((b) => b >= 0x80)) throw new PackageError('an entry name is not ASCII and not marked UTF-8')
  const name = raw.toString(utf8 ? 'utf8' : 'latin1')
  const shown = JSON.stringify(name).slice(1, -1)
  if (name.includes('\\') || name.includes('\0'))
    throw new PackageError(`'${shown}' has a backslash or NUL in its name`)
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new PackageError(`'${shown}' is an absolute path`)
  const segments = name.endsWith('/') ? name.slice(0, -1).split('/') : name.split('/')
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new PackageError(`'${shown}' would be written outside the package directory ('..', '.' or an empty segment)`)
  }
  return name
}

/**
 * Unpacks a package zip into `target` (which must not exist yet), refusing: names that are
 * absolute or climb out (`..`), links and other special files, more entries or bytes than the
 * limits, and anything not under one top-level directory. Returns that directory's name.
 */
export async function unpackZip(
  file: string,
  target: string,
  limits: UnpackLimits = DEFAULT_UNPACK_LIMITS
): Promise<string> {
  const zip = await open(file)
  const root = resolve(target)
  let top: string | null = null
  let entries = 0
  const total = { bytes: 0 }
  try {
    await new Promise<void>((resolvePromise, reject) => {
      const fail = (err: unknown): void => {
        zip.close()
        reject(err instanceof PackageError ? err : new PackageError(`not a valid package: ${errorMessage(err)}`))
      }
      zip.on('error', fail)
      zip.on('end', () => resolvePromise())
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          if (++entries > limits.maxEntries) throw new PackageError(`more than ${limits.maxEntries} entries`)
          const name = entryName(entry)
          const parts = name.split('/')
          const first = parts[0]!
          if (parts.length < 2)
            throw new PackageError(
              `'${name}' is not inside a top-level directory; zip the directory named after the microservice`
            )
          if (top === null) top = first
          else if (first !== top)
            throw new PackageError(`more than one top-level entry ('${top}', '${first}'); a package is one directory`)
          // Unix mode in the upper 16 bits of the external attributes: only files and directories.
          const type = (entry.externalFileAttributes >>> 16) & 0o170000
          if (type === 0o120000) throw new PackageError(`'${name}' is a link; a package holds plain files only`)
          if (type !== 0 && type !== 0o100000 && type !== 0o040000)
            throw new PackageError(`'${name}' is not a plain file`)
          if (entry.uncompressedSize > limits.maxEntryBytes)
            throw new PackageError(
              `'${name}' declares ${entry.uncompressedSize} bytes, more than ${limits.maxEntryBytes}`
            )
          const dest = resolve(root, name)
          if (dest !== root && !dest.startsWith(root + sep))
            throw new PackageError(`'${name}' would be written outside the package directory`)
          if (name.endsWith('/')) {
            mkdirSync(dest, { recursive: true })
            zip.readEntry()
            return
          }
          mkdirSync(dirname(dest), { recursive: true })
          zip.openReadStream(entry, (err, stream) => {
            if (err !== null || stream === undefined) {
              fail(err)
              return
            }
            pipeline(
              stream,
              new Meter(name, limits, total),
              createWriteStream(dest, { flags: 'wx', mode: 0o644 })
            ).then(() => zip.readEntry(), fail)
          })
        } catch (err) {
          fail(err)
        }
      })
      zip.readEntry()
    })
  } catch (err) {
    zip.close()
    throw err
  }
  if (top === null) throw new PackageError('the archive is empty')
  return top
}

/** The entry names of a zip, each checked as unpackZip checks it; nothing is unpacked. */
export async function zipEntryNames(file: string): Promise<string[]> {
  const zip = await open(file)
  return await new Promise<string[]>((resolvePromise, reject) => {
    const names: string[] = []
    zip.on('error', (err: unknown) => reject(err instanceof PackageError ? err : new PackageError(String(err))))
    zip.on('end', () => resolvePromise(names))
    zip.on('entry', (entry: yauzl.Entry) => {
      try {
        names.push(entryName(entry))
        zip.readEntry()
      } catch (err) {
        zip.close()
        reject(err)
      }
    })
    zip.readEntry()
  })
}
