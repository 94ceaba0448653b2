// Audit log (admin): newest first, paged with the route's `before` cursor, filterable by action.
import { api } from '../../api.ts'
import { Heading } from '../../components/heading.tsx'
import { Region, useLoad } from '../../components/load.tsx'
import { Time } from '../../components/time.tsx'
import { location, navigate, queryParam, withQuery } from '../../router.ts'

const PAGE = 50
const ACTIONS = ['login', 'logout', 'identity_search', 'sessions_revoke', 'settings_write', 'settings_delete', 'settings_decrypt_read', 'settings_reencrypt']
const TRAIL_SEPARATOR = '~'

export function AuditPage() {
  const search = location.value.search
  const before = queryParam('before') ?? ''
  const action = queryParam('action') ?? ''
  const trail = (queryParam('trail') ?? '').split(TRAIL_SEPARATOR).filter(Boolean)
  const [loaded, retry] = useLoad(() => api.auditPage({ limit: PAGE, before: before || undefined, action: action || undefined }), [search])
  return (
    <>
      <Heading>Audit log</Heading>
      <div class="toolbar">
        <label class="page-size">
          <span>Action</span>
          <select value={action} onChange={(e) => navigate(withQuery({ action: e.currentTarget.value || null, before: null, trail: null }))}>
            <option value="">All actions</option>
            {ACTIONS.map((name) => (
              <option key={name} value={name}>
                {name.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Region loaded={loaded} retry={retry} label="audit events">
        {({ events, next_before }) => (
          <>
            {events.length === 0 ? (
              <p class="empty">No audit event{action ? ' with this action' : ''}.</p>
            ) : (
              <div class="table-wrap" tabIndex={0}>
                <table class="data">
                  <caption class="visually-hidden">Audit events, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Actor</th>
                      <th scope="col">Action</th>
                      <th scope="col">Target</th>
                    </tr>
                  </thead>
                  <tbody>
                    {events.map((event) => (
                      <tr key={event.id}>
                        <td>
                          <Time value={event.at} />
                        </td>
                        <td class="mono">{event.actor ?? '—'}</td>
                        <td>{event.action.replace(/_/g, ' ')}</td>
                        <td class="mono">{event.target ?? '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <div class="pager">
              <button
                type="button"
                disabled={!before}
                onClick={() => navigate(withQuery({ before: trail[trail.length - 1] === '0' ? null : (trail[trail.length - 1] ?? null), trail: trail.slice(0, -1).join(TRAIL_SEPARATOR) || null }))}
              >
                Newer events
              </button>
              <button
                type="button"
                disabled={next_before === null}
                onClick={() => navigate(withQuery({ before: String(next_before), trail: [...trail, before || '0'].join(TRAIL_SEPARATOR) }))}
              >
                Older events
              </button>
            </div>
          </>
        )}
      </Region>
    </>
  )
}
