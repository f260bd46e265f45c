import { readFileSync, writeFileSync, renameSync, existsSync } from 'node:fs'
import { join } from 'node:path'

/** What is deployed, kept in the deployment directory so it survives a restart of the platform. */
export interface DeploymentState {
  /** `previous`: the version it replaced, kept for `microservice rollback`. */
  microservices: Record<string, { dir: string; desired: 'running' | 'stopped'; previous?: string }>
}

export class StateFile {
  readonly file: string
  constructor(deploymentDirectory: string) {
    this.file = join(deploymentDirectory, 'state.json')
  }

  read(): DeploymentState {
    if (!existsSync(this.file)) return { microservices: {} }
    return JSON.parse(readFileSync(this.file, 'utf8')) as DeploymentState
  }

  /** Written to a temporary file and renamed, so a crash never leaves half a file. */
  write(state: DeploymentState): void {
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, JSON.stringify(state, null, 2))
    renameSync(tmp, this.file)
  }
}
