// The throw-away PostgreSQL cluster of one test file: started before its tests, destroyed after.

import { afterAll, beforeAll } from 'bun:test'
import { startPostgres, type PostgresCluster, type PostgresOptions } from './postgres.ts'

/**
 * A cluster for the calling scope (a file or a describe block), started in a beforeAll and
 * destroyed in an afterAll; usable once the beforeAll has run.
 *
 * Bun runs the afterAll hooks of one scope in the order they were registered (and those of an
 * inner describe first). A file whose own afterAll still needs the cluster (stopping processes or
 * storages connected to it) registers that hook before calling this; a beforeAll that needs the
 * cluster is registered after.
 */
export function usePostgres(options: PostgresOptions = {}): PostgresCluster {
  let cluster: PostgresCluster | null = null
  const started = (): PostgresCluster => {
    if (cluster === null) throw new Error('the PostgreSQL cluster is used before usePostgres() started it')
    return cluster
  }
  beforeAll(async () => {
    cluster = await startPostgres(options)
  }, 60_000)
  afterAll(async () => {
    await cluster?.destroy()
  })
  return {
    get adminUrl() {
      return started().adminUrl
    },
    get port() {
      return started().port
    },
    get password() {
      return started().password
    },
    get user() {
      return started().user
    },
    get running() {
      return cluster?.running ?? false
    },
    createDatabase: (name) => started().createDatabase(name),
    stop: () => started().stop(),
    start: () => started().start(),
    destroy: () => started().destroy(),
  }
}
