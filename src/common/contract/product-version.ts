import { readFileSync } from 'node:fs'
import { join } from 'node:path'

let version: string | null = null

/** This project's version, from its package.json (read once, on first use). */
export function productVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
  ).version
  return version
}
