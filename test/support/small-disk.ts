// A filesystem of its own (a 2 MiB tmpfs) that a test fills to the last block, to see what the
// service does on a full disk: SQLite's own codes for it, not a stand-in's. Mounting takes root
// (CAP_SYS_ADMIN), which the test machine has.

import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { temporaryDir } from './temp.ts'

export interface SmallDisk {
  /** Its mount point. */
  readonly dir: string
  /** Takes every block left, with a file of zeros. */
  fill(): void
  /** Gives them back. */
  free(): void
  unmount(): void
}

const FILLER = '.filler'

export function mountSmallDisk(): SmallDisk {
  const dir = temporaryDir('admin-dashboard-small-disk-')
  const mounted = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir], { stderr: 'pipe' })
  if (mounted.exitCode !== 0) throw new Error(`cannot mount a tmpfs (these tests need root or CAP_SYS_ADMIN): ${mounted.stderr.toString().trim()}`)
  return {
    dir,
    fill() {
      const fd = openSync(join(dir, FILLER), 'a')
      const block = new Uint8Array(4096)
      try {
        for (;;) writeSync(fd, block)
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error
      } finally {
        closeSync(fd)
      }
    },
    free() {
      rmSync(join(dir, FILLER), { force: true })
    },
    unmount() {
      Bun.spawnSync(['umount', dir])
    },
  }
}
