import type { EventLog } from '../../common/observability/log'
import { errorMessage } from '../../common/errors/internal'
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, watch, existsSync, type FSWatcher } from 'node:fs'
import { join, basename } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { unpackZip, PackageError, type UnpackLimits } from './zip'
import {
  codeFile,
  codeFileNamed,
  readMicroserviceConfig,
  type MicroserviceConfig,
  type JavaMicroserviceConfig
} from '../../microservice/host/package-config'
import { JAVA_HOST_MISSING, checkJavaPackage, javaClassPath } from '../../microservice/host/java-host'
import { StateFile } from './deployed-state'

export interface DeployerOptions {
  uploadDirectory: string
  deploymentDirectory: string
  unpack: UnpackLimits
  /** How long the Java host may take to load a java package before it is refused (PLATFORM.startTimeoutMs). */
  javaCheckTimeoutMs?: number
}

/** The outcome of one upload, written to <upload>/results/<zip name>.json for `microservice upload`. */
export interface UploadResult {
  file: string
  ok: boolean
  message: string
  name?: string
  version?: string
}

/**
 * What deploying asks of the platform's running microservices (MicroserviceManager, a level up, is
 * one): start a package's instances, take over ones already running, and the Java class path.
 */
export interface Instances {
  deploy(dir: string, config: MicroserviceConfig): Promise<unknown>
  adopt(dir: string, config: MicroserviceConfig): unknown
  readonly options: { readonly javaClassPathFile?: string }
}

/**
 * Watches the upload directory. Each zip that lands there (written under another name and renamed,
 * so it is complete) is unpacked safely, validated, and deployed; a refusal says why and leaves
 * what runs untouched. Uploads are handled one at a time, in arrival order.
 */
export class Deployer {
  private watcher: FSWatcher | null = null
  private busy: Promise<void> = Promise.resolve()
  private readonly seen = new Set<string>()
  readonly state: StateFile
  readonly results: string
  /** Uploads deployed and refused since start (for the metrics). */
  deployed = 0
  refused = 0

  constructor(
    private readonly manager: Instances,
    readonly options: DeployerOptions,
    private readonly log: EventLog
  ) {
    mkdirSync(options.uploadDirectory, { recursive: true })
    mkdirSync(options.deploymentDirectory, { recursive: true })
    this.results = join(options.uploadDirectory, 'results')
    mkdirSync(this.results, { recursive: true })
    this.state = new StateFile(options.deploymentDirectory)
  }

  /** Restarts what was deployed before the platform stopped (in the state it was left in). */
  async restore(): Promise<void> {
    for (const [name, entry] of Object.entries(this.state.read().microservices)) {
      try {
        const config = readMicroserviceConfig(entry.dir)
        if (entry.desired === 'running') await this.manager.deploy(entry.dir, config)
        else this.manager.adopt(entry.dir, config)
      } catch (err) {
        this.log(`microservice ${name} could not be restored: ${errorMessage(err)}`, {
          event: 'restore-failed',
          microservice: name
        })
      }
    }
  }

  /** Starts watching; zips already waiting are handled first. */
  watch(): void {
    this.scan()
    this.watcher = watch(this.options.uploadDirectory, () => this.scan())
  }

  close(): void {
    this.watcher?.close()
    this.watcher = null
  }

  /** Resolves when every upload seen so far has been handled. */
  idle(): Promise<void> {
    return this.busy
  }

  /** Looks at the upload directory now (the watcher does it too, on every change). */
  scan(): void {
    for (const name of readdirSync(this.options.uploadDirectory)) {
      if (!name.endsWith('.zip') || name.startsWith('.') || this.seen.has(name)) continue
      this.seen.add(name)
      this.busy = this.busy.then(() => this.handle(name)).then(() => undefined)
    }
  }

  /**
   * A package sent over the network (the admin listener's POST /deploy): written into the upload
   * directory as any upload is, handled in turn with the others; resolves with the verdict.
   */
  upload(zip: Buffer, zipName: string): Promise<UploadResult> {
    const name = basename(zipName)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '')
    const file = join(this.options.uploadDirectory, name.endsWith('.zip') ? name : `${name}.zip`)
    const part = join(this.options.uploadDirectory, `.${basename(file)}.part`)
    writeFileSync(part, zip)
    this.seen.add(basename(file))
    renameSync(part, file)
    const result = this.busy.then(() => this.handle(basename(file)))
    this.busy = result.then(() => undefined)
    return result
  }

  private async handle(name: string): Promise<UploadResult> {
    const file = join(this.options.uploadDirectory, name)
    const result = await this.deployZip(file)
    // Written under a hidden name and renamed: \`microservice upload\` polls for the verdict and must only
    // ever read it whole.
    const part = join(this.results, `.${name}.json.part`)
    writeFileSync(part, JSON.stringify(result, null, 2))
    renameSync(part, join(this.results, `${name}.json`))
    rmSync(file, { force: true })
    this.seen.delete(name)
    if (result.ok) this.deployed++
    else this.refused++
    this.log(`upload ${name}: ${result.message}`, { event: result.ok ? 'deploy' : 'deploy-refused', file: name })
    return result
  }

  /** Unpacks, validates and deploys one package zip; never throws. */
  async deployZip(file: string): Promise<UploadResult> {
    const zipName = basename(file)
    if (!existsSync(file)) return { file: zipName, ok: false, message: `${zipName} is not in the upload directory` }
    const staging = mkdtempSync(join(this.options.deploymentDirectory, '.staging-'))
    try {
      const top = await unpackZip(file, join(staging, 'pkg'), this.options.unpack)
      const dir = join(staging, 'pkg', top)
      let config
      try {
        config = readMicroserviceConfig(dir)
      } catch (err) {
        throw new PackageError(errorMessage(err).replace(dir, top))
      }
      if (config.name !== top)
        throw new PackageError(
          `the top-level directory is '${top}' but microservice.json names '${config.name}'; the directory must be named after the microservice`
        )
      if (!existsSync(join(dir, codeFile(config))))
        throw new PackageError(`${codeFileNamed(config)}, is not in the package`)
      if (config.runtime === 'java') await this.checkJava(dir, config)
      const target = join(this.options.deploymentDirectory, config.name, `${config.version}-${Date.now()}`)
      mkdirSync(join(this.options.deploymentDirectory, config.name), { recursive: true })
      renameSync(dir, target)
      try {
        await this.manager.deploy(target, config)
      } catch (err) {
        rmSync(target, { recursive: true, force: true })
        throw new PackageError(`${config.name} ${config.version} did not start: ${errorMessage(err)}`)
      }
      const replaced = this.state.read().microservices[config.name]?.dir
      const previous = replaced !== undefined && existsSync(replaced) ? replaced : null
      this.record(config.name, target, 'running', previous)
      this.prune(config.name, [target, previous])
      return {
        file: zipName,
        ok: true,
        message: `deployed ${config.name} ${config.version}`,
        name: config.name,
        version: config.version
      }
    } catch (err) {
      return { file: zipName, ok: false, message: `refused ${zipName}: ${errorMessage(err)}` }
    } finally {
      rmSync(staging, { recursive: true, force: true })
    }
  }

  /**
   * A java package is loaded once by the Java host (`--check`: its jar, its Spring context, its
   * catalog) before anything is deployed, so that a package it cannot load is refused with the host's
   * reason rather than found out when the instances start.
   */
  private async checkJava(dir: string, config: JavaMicroserviceConfig): Promise<void> {
    const classPath = javaClassPath(this.manager.options.javaClassPathFile)
    if (classPath === null) throw new PackageError(JAVA_HOST_MISSING)
    const timeoutMs = this.options.javaCheckTimeoutMs ?? 15000
    await checkJavaPackage(classPath, dir, config.memory.maxOldSpaceMb, timeoutMs).catch((err: unknown) => {
      // The host names files by where they were unpacked, a directory about to be removed.
      const why = errorMessage(err).split(dir).join(config.name)
      throw new PackageError(`${config.name} ${config.version} cannot be loaded: ${why}`)
    })
  }

  /** Records what runs; `previous` (null: none) stays as it was when not given (a stop or a start). */
  record(name: string, dir: string | null, desired: 'running' | 'stopped', previous?: string | null): void {
    const state = this.state.read()
    if (dir === null) delete state.microservices[name]
    else {
      const kept = previous === undefined ? state.microservices[name]?.previous : previous
      state.microservices[name] = kept == null ? { dir, desired } : { dir, desired, previous: kept }
    }
    this.state.write(state)
  }

  /**
   * Brings back the version the current one replaced (its instances start, the current ones drain,
   * as in any deploy); the current one becomes the previous, so a second rollback rolls forward.
   */
  rollback(name: string): Promise<UploadResult> {
    // In turn with the uploads: a rollback and a deploy of one microservice never overlap.
    const result = this.busy.then(() => this.rollbackNow(name))
    this.busy = result.then(() => undefined)
    return result
  }

  private async rollbackNow(name: string): Promise<UploadResult> {
    const entry = this.state.read().microservices[name]
    if (entry === undefined) return { file: '', ok: false, message: `no microservice named '${name}' is deployed` }
    const previous = entry.previous
    if (previous === undefined || !existsSync(previous))
      return { file: '', ok: false, message: `${name} has no previous version to roll back to` }
    const config = readMicroserviceConfig(previous)
    try {
      await this.manager.deploy(previous, config)
    } catch (err) {
      return { file: '', ok: false, message: `${name} ${config.version} did not start: ${errorMessage(err)}` }
    }
    this.record(name, previous, 'running', entry.dir)
    this.log(`rolled ${name} back to ${config.version}`, {
      event: 'rollback',
      microservice: name,
      version: config.version
    })
    return { file: '', ok: true, message: `rolled ${name} back to ${config.version}`, name, version: config.version }
  }

  /** Deletes the unpacked versions of a microservice other than those in `keep`. */
  prune(name: string, keep: ReadonlyArray<string | null>): void {
    const dir = join(this.options.deploymentDirectory, name)
    if (!existsSync(dir)) return
    for (const v of readdirSync(dir)) {
      const p = join(dir, v)
      if (!keep.includes(p) && v !== 'snapshots') rmSync(p, { recursive: true, force: true })
    }
  }
}
