// The identity schemas for a page that lists identities, asked for once while it is shown: they are
// few and name every row (describe.ts primaryIdentifier), where asking per row would not do.
import { useRef } from 'preact/hooks'
import { api, type IdentitySchema } from '../../api.ts'
import { schemasFrom } from '../../session.ts'

/**
 * What a list's loader awaits beside its rows, so that each row is named by its schema from the
 * first time it is shown: the schemas, or null when they could not be read (the rows are then
 * named without them, and the next load asks again).
 */
export function useSchemasOnce(): () => Promise<IdentitySchema[] | null> {
  const asked = useRef<Promise<IdentitySchema[] | null> | null>(null)
  return () => {
    if (asked.current) return asked.current
    const asking = api.schemas(schemasFrom()).then((result) => {
      if (!result.ok && asked.current === asking) asked.current = null
      return result.ok ? result.data : null
    })
    asked.current = asking
    return asking
  }
}
