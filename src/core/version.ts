import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** This project's version, from its package.json (read once, on first use). */
export function productVersion(): string {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}
