// Java packages for the tests, built as a team builds its own: scripts/build-java-package.sh (javac and
// jar against the platform's class path, which scripts/ensure-java-host.sh installs and compiles when
// missing) from a source folder — the example's and the fixtures' folders, or one a test writes from
// sources it states.
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { tmpdir } from 'node:os'
import { ROOT } from '../root'

/**
 * The Java host's class path: scripts/ensure-java-host.sh builds the host when its sources changed (and
 * installs the JDK and jars when missing), then prints it.
 */
export function hostClassPath(): string {
  return execFileSync('bash', [join(ROOT, 'scripts', 'ensure-java-host.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000
  }).trim()
}

/**
 * Builds the package whose source folder is `source` (microservice.json, src/, resources/, lib/) into
 * `target`, by default dist/ at the folder's path in the project; returns the package's directory.
 */
export function builtPackage(source: string, target = join(ROOT, 'dist', relative(ROOT, source))): string {
  execFileSync('bash', [join(ROOT, 'scripts', 'build-java-package.sh'), source, target], {
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 600_000
  })
  return target
}

export interface JavaPackageSource {
  /** Java sources by path under src/ ('calc/Calculator.java' → its text). */
  sources: Record<string, string>
  /** Files put into the jar beside the classes ('META-INF/calc.xml' → its text). */
  resources?: Record<string, string>
  /** microservice.json's keys beyond name, version, runtime and jar (applicationContext at least). */
  config: Record<string, unknown>
}

/**
 * A package directory named `name` built from `source`: its source folder written out (microservice.json
 * with version 1.0.0 unless the config says another, src/, resources/), then built as any other.
 */
export function javaPackage(name: string, source: JavaPackageSource): string {
  const folder = join(mkdtempSync(join(tmpdir(), 'java-package-src-')), name)
  for (const [path, text] of [
    ...Object.entries(source.sources).map(([p, t]) => [join('src', p), t]),
    ...Object.entries(source.resources ?? {}).map(([p, t]) => [join('resources', p), t])
  ]) {
    mkdirSync(dirname(join(folder, path!)), { recursive: true })
    writeFileSync(join(folder, path!), text!)
  }
  writeConfig(folder, { name, version: '1.0.0', runtime: 'java', jar: `${name}.jar`, ...source.config })
  return builtPackage(folder, join(mkdtempSync(join(tmpdir(), 'java-package-')), name))
}

/** The jar of `source` written at `jar` (named `<microservice>.jar`), as a build tool rebuilding it would. */
export function compileJar(source: JavaPackageSource, jar: string): void {
  const name = basename(jar, '.jar')
  copyFileSync(join(javaPackage(name, source), `${name}.jar`), jar)
}

/** A copy of the package in `from` whose microservice.json `edit` changes (in a new directory of its name). */
export function javaPackageVariant(from: string, edit: (config: Record<string, unknown>) => void): string {
  const config = JSON.parse(JSON.stringify(readConfig(from))) as Record<string, unknown>
  edit(config)
  const dir = join(mkdtempSync(join(tmpdir(), 'java-package-')), String(config.name))
  cpSync(from, dir, { recursive: true })
  writeConfig(dir, config)
  return dir
}

/** A Spring XML context of these beans (id → class), with the services matching `enabled` remotely enabled. */
export function springContext(beans: Record<string, string>, enabled: string[] = ['.*']): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<beans xmlns="http://www.springframework.org/schema/beans"',
    '       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    '       xmlns:util="http://www.springframework.org/schema/util"',
    '       xsi:schemaLocation="http://www.springframework.org/schema/beans http://www.springframework.org/schema/beans/spring-beans.xsd',
    '                           http://www.springframework.org/schema/util http://www.springframework.org/schema/util/spring-util.xsd">',
    ...Object.entries(beans).map(([id, cls]) => `  <bean id="${id}" class="${cls}"/>`),
    '  <util:list id="platformRegularExpressionToRemotelyEnabled" value-type="java.lang.String">',
    ...enabled.map((e) => `    <value>${e}</value>`),
    '  </util:list>',
    '</beans>',
    ''
  ].join('\n')
}

function readConfig(dir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, 'microservice.json'), 'utf8')) as Record<string, unknown>
}

function writeConfig(dir: string, config: Record<string, unknown>): void {
  writeFileSync(join(dir, 'microservice.json'), JSON.stringify(config, null, 2))
}
