// Java packages for the tests, built as a team would build its own (scripts/build-java-package.sh:
// javac and jar against the platform's class path, which scripts/ensure-java-host.sh installs and
// compiles when missing).
import { execFileSync } from 'node:child_process'
import { join, relative } from 'node:path'
import { ROOT } from './root'

/** Builds the package whose sources are in `source` into dist/ (same relative path); returns its directory. */
export function buildJavaPackage(source: string): string {
  const target = join(ROOT, 'dist', relative(ROOT, source))
  execFileSync('bash', [join(ROOT, 'scripts', 'build-java-package.sh'), source, target], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 600_000
  })
  return target
}
