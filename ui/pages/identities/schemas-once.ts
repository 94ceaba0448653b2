// The identity schemas for a page that lists identities, asked for once while it is shown: they are
// few and name every row (describe.ts primaryIdentifier), where asking per row would not do.
import { useRef } from 'preact/hooks'
import { api, type IdentitySchema } from '../../api.ts'
import { schemasFrom } from '../../session.ts'

/**
 * What a list's loader awaits beside its rows, so that each row is named by its schema from the
 * first time it is shown: the schemas, or null when they could not be read or are slow to come
 * (the rows are then named without them, and the next load asks again or takes them as they came).
 */
export function useSchemasOnce(): () => Promise<IdentitySchema[] | null> {
  const asked = useRef<Promise<IdentitySchema[] | null> | null>(null)
  return () => {
    if (!asked.current) {
      const asking = api.schemas(schemasFrom()).then((result) => {
        if (!result.ok && asked.current === asking) asked.current = null
        return result.ok ? result.data : null
      })
      asked.current = asking
    }
    // A public API slow to answer does not hold the list: its rows are named without the schemas
    // then, and the next load (another page, a search) has them once they have come.
    return Promise.race([asked.current, new Promise<null>((resolve) => setTimeout(() => resolve(null), SCHEMAS_WAIT_MS))])
  }
}

/** How long a list waits for the schemas beside its rows. */
const SCHEMAS_WAIT_MS = 1500
