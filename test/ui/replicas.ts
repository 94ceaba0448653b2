// Two replicas of the sandbox's service on one throw-away PostgreSQL database, as behind a
// balancer, for journeys of two operators at once: each in a browser of their own (a Playwright
// context) signed in at one replica. The replicas share the sandbox's stand-in Kratos and Hydra and
// its OAuth provider; each has its own port and BASE_URL.

import { afterAll, beforeAll } from 'bun:test'
import type { SandboxReplica } from '../../dev/sandbox.ts'
import { markSecret } from '../support/leaks.ts'
import { usePostgres } from '../support/use-postgres.ts'
import type { PostgresCluster } from '../support/postgres.ts'
import { signedInPage, startHarness, type Harness } from './harness.ts'

export interface ReplicaHarness extends Harness {
  /** The cluster the replicas share (stop and start it for an outage). */
  pg: PostgresCluster
  /** The first replica and the second. */
  a: SandboxReplica
  b: SandboxReplica
}

/**
 * The cluster, two replicas and a browser for the tests of the surrounding file or describe block:
 * started before them, stopped after them. Read its fields in tests and hooks, not at load.
 */
export function useReplicaHarness(): ReplicaHarness {
  let started: Harness | undefined
  // Registered before the cluster's own afterAll: the replicas close their connections first.
  afterAll(async () => {
    await started?.stop()
  })
  const pg = usePostgres()
  beforeAll(async () => {
    // No page, answer or log line may carry the database's password.
    markSecret(pg.password)
    started = await startHarness({ databaseUrl: await pg.createDatabase(), replicas: 2 })
  }, 60_000)
  return {
    pg,
    get sandbox() {
      return started!.sandbox
    },
    get browser() {
      return started!.browser
    },
    get a() {
      return started!.sandbox.replicas[0]!
    },
    get b() {
      return started!.sandbox.replicas[1]!
    },
    stop: () => started!.stop(),
  }
}

/** An operator signed in at `replica` in a browser of their own, on `path`. */
export function operatorAt(harness: ReplicaHarness, replica: SandboxReplica, role: 'admin' | 'viewer' = 'admin', path = '/dashboard') {
  return signedInPage(harness, role, path, replica.url)
}
