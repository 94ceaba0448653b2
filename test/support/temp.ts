// Directories the suite makes for itself, removed once the whole run is over (preload.ts), whatever
// a test did in between: a restart test keeps its directory across two services, a failed test
// stops early.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

/** A new directory under the system's temporary one, named `<prefix>XXXXXX`, removed after the run. */
export function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function removeTemporaryDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}
