// `microservice dev <dir>`: packs, deploys and redeploys a directory on every change.
import { mkdtempSync, rmSync, watch } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { errorMessage } from '../../common/errors/internal'
import { loadConfig, type PlatformConfig } from '../../common/config/config'
import { CONFIG_FILE, readMicroserviceConfig, type MicroserviceConfig } from '../../microservice/host/package-config'
import { control } from '../control-client'
import { firstArgument, type Command } from '../command-line'
import { pack } from './pack-command'
import { upload } from './upload-command'

/**
 * `microservice dev DIR`: packs and deploys the directory to the local platform, then again on every
 * change under it (a burst of saves is one deploy), printing each verdict; a version that fails to
 * load is refused with its place while the last good one keeps answering. Until Ctrl+C.
 */
export async function dev(config: PlatformConfig, dir: string): Promise<number> {
  const abs = resolve(dir)
  // Throws now (no platform, no such directory) rather than watching for nothing.
  await control(config, 'GET', '/microservices')
  let watched = watchedFiles(readMicroserviceConfig(abs))
  const work = mkdtempSync(join(tmpdir(), 'microservice-dev-'))
  const zip = join(work, `${basename(abs)}.zip`)
  let round = Promise.resolve()
  let busy = false
  const deploy = (): void => {
    round = round.then(async () => {
      busy = true
      const at = new Date().toTimeString().slice(0, 8)
      try {
        await pack(abs, zip)
        // The config just packed may name another jar, or another runtime.
        watched = watchedFiles(readMicroserviceConfig(abs))
        console.log(`${at} ${await upload(config, zip, true)}`)
      } catch (err) {
        console.log(`${at} not deployed: ${errorMessage(err)}`)
      } finally {
        busy = false
      }
    })
  }
  try {
    deploy()
    let timer: NodeJS.Timeout | undefined
    const watcher = watch(abs, { recursive: true }, (_event, file) => {
      if (file !== null && !watched(file)) return
      clearTimeout(timer)
      timer = setTimeout(deploy, 200)
    })
    console.log(`watching ${abs}: every change is packed and deployed to the local platform; Ctrl+C stops`)
    await new Promise<void>((done) => {
      watcher.on('error', (err) => {
        console.log(`cannot watch ${abs} any more: ${err.message}`)
        done()
      })
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.once(signal, () => {
          if (busy) console.log('finishing the deploy in progress (Ctrl+C again stops at once)…')
          done()
        })
    })
    watcher.close()
    clearTimeout(timer)
    await round
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  return 0
}

/**
 * Which changed files (relative to the directory) make a new deploy: for a node package any but
 * node_modules/ and .git/; for a java one only what is packed and run, the jar, lib/ and the config, so
 * that a build writing classes and sources beside them deploys once, when the jar is written.
 */
export function watchedFiles(config: MicroserviceConfig): (file: string) => boolean {
  if (config.runtime === 'node') return (file) => !/^(node_modules|\.git)([/\\]|$)/.test(file)
  const jar = config.jar
  return (file) => file === jar || file === CONFIG_FILE || /^lib([/\\]|$)/.test(file)
}

export const devCommand: Command = (line) => dev(loadConfig(), firstArgument(line, 'dir'))
