// Audit log (admin): newest first, paged with the route's `before` cursor, filterable by action
// and actor; targets and actors that are identities link to their pages.
import { useState } from 'preact/hooks'
import { api, type AuditEvent } from '../../api.ts'
import { Cell, DataTable, Row } from '../../components/data-table.tsx'
import { FilterSelect } from '../../components/filter-select.tsx'
import { Heading } from '../../components/heading.tsx'
import { EmptyList, Region, useLoad, useResultsAnnounced } from '../../components/load.tsx'
import { Time } from '../../components/time.tsx'
import { location, navigate, queryParam, useQueryText, withQuery } from '../../router.ts'
import { config, hasUpstream } from '../../session.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'

const PAGE = 50
const ACTIONS = ['login', 'logout', 'identity_search', 'sessions_revoke', 'proxy_write', 'settings_write', 'settings_delete', 'settings_decrypt_read', 'settings_reencrypt'].map(
  (name) => ({ value: name, label: name.replace(/_/g, ' ') }),
)
const TRAIL_SEPARATOR = '~'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
// Actions whose target is an identity id.
const IDENTITY_TARGETS = new Set(['sessions_revoke'])

function outcomeOf(event: AuditEvent): string {
  const detail = event.detail ?? {}
  if (typeof detail.outcome === 'string') return detail.outcome.replace(/_/g, ' ')
  if (typeof detail.ok === 'boolean') return detail.ok ? 'ok' : 'failed'
  if (typeof detail.status === 'number') return detail.status < 400 ? `ok (${detail.status})` : `failed (${detail.status})`
  return 'ok'
}

/** The action in words; a write through a proxy says which method it was (a DELETE is not a PUT). */
function actionOf(event: AuditEvent): string {
  const words = event.action.replace(/_/g, ' ')
  const method = event.detail?.method
  return event.action === 'proxy_write' && typeof method === 'string' ? `${words} (${method})` : words
}

/**
 * Actors, and the identities whose dashboard sessions ended, live in the login identity store: a
 * link to the identity pages only when those show that store (not when the admins have a Kratos
 * of their own, nor without a managed Kratos at all).
 */
const loginStoreShown = () => hasUpstream('kratos') && config.value?.upstreams['iam-idp-admin'] !== true

function IdentityRef({ value }: { value: string | null }) {
  if (!value) return <>—</>
  if (!UUID.test(value) || !loginStoreShown()) return <>{value}</>
  return <a href={`/dashboard/identities/${encodeURIComponent(value)}`}>{value}</a>
}

export function AuditPage() {
  const search = location.value.search
  const before = queryParam('before') ?? ''
  const action = queryParam('action') ?? ''
  const actor = queryParam('actor') ?? ''
  const trail = (queryParam('trail') ?? '').split(TRAIL_SEPARATOR).filter(Boolean)
  const [actorText, setActorText] = useQueryText(actor)
  const [actorError, setActorError] = useState<string | null>(null)
  const focusFirstInvalid = useFocusFirstInvalid()
  const [loaded, retry] = useLoad(
    () => api.auditPage({ limit: PAGE, before: before || undefined, action: action || undefined, actor: actor || undefined }),
    [search],
  )
  const none = before ? 'No more audit events.' : `No audit event${action || actor ? ' matches this filter' : ''}.`
  useResultsAnnounced(loaded, search, ({ events }) => (events.length === 0 ? none : `${events.length} audit ${events.length === 1 ? 'event' : 'events'} shown.`))
  const filterByActor = (event: Event) => {
    event.preventDefault()
    const value = actorText.trim()
    if (value !== '' && !UUID.test(value)) {
      setActorError('Enter an identity ID (a UUID), or leave it empty for everyone.')
      return focusFirstInvalid(event.currentTarget as HTMLFormElement)
    }
    setActorError(null)
    navigate(withQuery({ actor: value || null, before: null, trail: null }))
  }
  return (
    <>
      <Heading>Audit log</Heading>
      <div class="toolbar filters">
        <form class="search" onSubmit={filterByActor} noValidate role="search" aria-label="Filter by actor">
          <label for="audit-actor">Actor (identity ID)</label>
          <input
            id="audit-actor"
            class="mono"
            value={actorText}
            autocomplete="off"
            spellcheck={false}
            aria-invalid={actorError ? 'true' : undefined}
            aria-describedby={actorError ? 'audit-actor-error' : undefined}
            onInput={(e) => setActorText(e.currentTarget.value)}
          />
          <button type="submit">Filter</button>
          {actor && (
            <button type="button" onClick={() => navigate(withQuery({ actor: null, before: null, trail: null }))}>
              Show everyone
            </button>
          )}
          {actorError && (
            <p class="field-error" id="audit-actor-error">
              {actorError}
            </p>
          )}
        </form>
        <FilterSelect
          label="Action"
          value={action}
          all="All actions"
          options={ACTIONS}
          unknown="Unknown action"
          onChange={(chosen) => navigate(withQuery({ action: chosen, before: null, trail: null }))}
        />
      </div>
      <Region
        loaded={loaded}
        retry={retry}
        label="audit events"
        place={{
          firstPage: before ? withQuery({ before: null, trail: null }) : null,
          unfiltered: action || actor ? withQuery({ action: null, actor: null, before: null, trail: null }) : null,
        }}
      >
        {({ events, next_before }) => (
          <>
            {events.length === 0 ? (
              <EmptyList text={none} firstPage={before ? withQuery({ before: null, trail: null }) : null} />
            ) : (
              <DataTable caption="Audit events, newest first" columns={['Time', 'Actor', 'Action', 'Target', 'Outcome']}>
                {events.map((event) => (
                  <Row key={event.id}>
                    <Cell label="Time">
                      <Time value={event.at} />
                    </Cell>
                    <Cell label="Actor" class="mono">
                      {event.actor ? <IdentityRef value={event.actor} /> : 'command line'}
                    </Cell>
                    <Cell label="Action">{actionOf(event)}</Cell>
                    <Cell label="Target" class="mono">
                      {IDENTITY_TARGETS.has(event.action) ? <IdentityRef value={event.target} /> : (event.target ?? '—')}
                    </Cell>
                    <Cell label="Outcome">{outcomeOf(event)}</Cell>
                  </Row>
                ))}
              </DataTable>
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
