// Audit log (admin): newest first, paged with the route's `before` cursor, filterable by action,
// actor and request (the request ID a failure shows); targets and actors that are identities link
// to their pages.
import { useState } from 'preact/hooks'
import { api, type AuditEvent } from '../../api.ts'
import { Cell, cellText, DataTable, Row } from '../../components/data-table.tsx'
import { FilterSelect } from '../../components/filter-select.tsx'
import { Heading } from '../../components/heading.tsx'
import { EmptyList, Region, useLoad, useResultsAnnounced } from '../../components/load.tsx'
import { momentText, Time } from '../../components/time.tsx'
import { location, navigate, queryParam, useQueryText, withQuery } from '../../router.ts'
import { config, hasUpstream } from '../../session.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'
import { revealHidden } from '../../reveal.ts'
import { actionWords, knownIdentifier, outcomeOf } from '../../audit-words.ts'
import { ABOUT_PATTERN, ACTIONS as AUDIT_ACTIONS } from '../../../src/security/audit-query.ts'

const PAGE = 50
// The service's own list of audit actions, so a new one is offered as soon as it exists.
const ACTIONS = Object.keys(AUDIT_ACTIONS).map((name) => ({ value: name, label: actionWords(name) }))
const TRAIL_SEPARATOR = '~'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
// Actions whose target is an identity id.
const IDENTITY_TARGETS = new Set(['sessions_revoke'])

/**
 * The action in words; a write through a proxy says which method it was (a DELETE is not a PUT),
 * and what it did where the service recorded it: an identity left deactivated, what a POST made,
 * the client whose tokens were revoked.
 */
function actionOf(event: AuditEvent): string {
  const words = actionWords(event.action)
  const detail = event.detail ?? {}
  if (event.action === 'audit_prune') return `${words} (${prunedFacts(detail)})`
  if (event.action !== 'proxy_write' || typeof detail.method !== 'string') return words
  const facts = [detail.method]
  // Every identity write records the state it left the identity in; only a deactivated one is
  // said (a traits edit saying "active" on every row would bury the deactivations).
  if (detail.state === 'inactive') facts.push('identity left deactivated')
  if (typeof detail.created === 'string') facts.push(`created ${detail.created}`)
  if (typeof detail.client_id === 'string') facts.push(`client ${detail.client_id}`)
  if (typeof detail.identity_id === 'string') facts.push(`for identity ${detail.identity_id}`)
  return `${words} (${facts.join(', ')})`
}

/** What a prune of the trail (the command line's `audit prune`) deleted: how many events, from before when. */
function prunedFacts(detail: NonNullable<AuditEvent['detail']>): string {
  const before = typeof detail.before === 'string' ? new Date(detail.before) : null
  const when = before && !Number.isNaN(before.getTime()) ? `recorded before ${momentText(before)}` : 'recorded before a time not known'
  if (typeof detail.deleted !== 'number') return `events ${when}`
  return `${detail.deleted.toLocaleString()} event${detail.deleted === 1 ? '' : 's'} ${when} deleted`
}

/**
 * Actors, and the identities whose dashboard sessions ended, live in the login identity store: a
 * link to the identity pages only when those show that store (not when the admins have a Kratos
 * of their own, nor without a managed Kratos at all).
 */
const loginStoreShown = () => hasUpstream('kratos') && config.value?.upstreams['iam-idp-admin'] !== true

/**
 * An e-mail address that may wrap after its `@` (an invisible break, the text unchanged): a narrow
 * column then shows the domain whole on the next line, instead of cutting a word where the line ends.
 */
function breakableAfterAt(text: string) {
  const at = text.lastIndexOf('@')
  if (at <= 0 || at === text.length - 1) return <>{text}</>
  return (
    <>
      {text.slice(0, at + 1)}
      <wbr />
      {text.slice(at + 1)}
    </>
  )
}

function IdentityRef({ value }: { value: string | null }) {
  if (!value) return <>—</>
  const known = knownIdentifier(value)
  const name = breakableAfterAt(cellText(revealHidden(known ?? value)))
  const shown = UUID.test(value) && loginStoreShown() ? <a href={`/dashboard/identities/${encodeURIComponent(value)}`}>{name}</a> : <>{name}</>
  if (!known) return shown
  // The id stays under it: it is what the actor filter takes. One element, one line of a phone's card.
  return (
    <span class="identity-ref">
      {shown} <span class="identity-id muted">{value}</span>
    </span>
  )
}

/**
 * A filter by one id kept in the query as `param`: checked before it is sent (`valid`, a UUID unless
 * said otherwise), with the button that takes it away once it is set. `anyCase`: the service
 * matches it in any case (a request ID), so it is sent in lower case; an actor is matched exactly as
 * the events record it.
 */
function IdFilter({
  param,
  name,
  label,
  invalid,
  clear,
  anyCase = false,
  valid = UUID,
}: {
  param: string
  name: string
  label: string
  invalid: string
  clear: string
  anyCase?: boolean
  valid?: RegExp
}) {
  const value = queryParam(param) ?? ''
  const [text, setText] = useQueryText(value)
  const [error, setError] = useState<string | null>(null)
  const focusFirstInvalid = useFocusFirstInvalid()
  const id = `audit-${param.replace(/_/g, '-')}`
  const submit = (event: Event) => {
    event.preventDefault()
    // Pasted with its label before it ("Request ID: …", as a failure's Details show it), the id is what counts.
    // The value the link set is kept as it is: a Hydra client id may begin or end with a space.
    const trimmed = text === value ? value : text.trim()
    const typed = trimmed.toLowerCase().startsWith(`${label.toLowerCase()}:`) ? trimmed.slice(label.length + 1).trim() : trimmed
    if (typed !== '' && !valid.test(typed)) {
      setError(invalid)
      return focusFirstInvalid(event.currentTarget as HTMLFormElement)
    }
    setError(null)
    navigate(withQuery({ [param]: (anyCase ? typed.toLowerCase() : typed) || null, before: null, trail: null }))
  }
  return (
    <form class="search" onSubmit={submit} noValidate role="search" aria-label={name}>
      <label for={id}>{label}</label>
      <input
        id={id}
        class="mono"
        value={text}
        autocomplete="off"
        autocapitalize="none"
        autocorrect="off"
        spellcheck={false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit">Filter</button>
      {value && (
        // The button goes with the filter: focus goes to the field, for the next one.
        <button type="button" onClick={() => (document.getElementById(id)?.focus(), navigate(withQuery({ [param]: null, before: null, trail: null })))}>
          {clear}
        </button>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </form>
  )
}

export function AuditPage() {
  const search = location.value.search
  const before = queryParam('before') ?? ''
  const action = queryParam('action') ?? ''
  const actor = queryParam('actor') ?? ''
  const request = queryParam('request_id') ?? ''
  const about = queryParam('about') ?? ''
  const trail = (queryParam('trail') ?? '').split(TRAIL_SEPARATOR).filter(Boolean)
  const [loaded, retry] = useLoad(
    () =>
      api.auditPage({
        limit: PAGE,
        before: before || undefined,
        action: action || undefined,
        actor: actor || undefined,
        request_id: request || undefined,
        about: about || undefined,
      }),
    [search],
  )
  const filtered = action || actor || request || about
  const none = before ? 'No more audit events.' : `No audit event${filtered ? ' matches this filter' : ''}.`
  useResultsAnnounced(loaded, search, ({ events }) => (events.length === 0 ? none : `${events.length} audit ${events.length === 1 ? 'event' : 'events'} shown.`))
  return (
    <>
      <Heading>Audit log</Heading>
      <div class="toolbar filters id-filters">
        <IdFilter param="actor" name="Filter by actor" label="Actor (identity ID)" invalid="Enter an identity ID (a UUID), or leave it empty for everyone." clear="Show everyone" />
        <IdFilter
          param="request_id"
          name="Filter by request"
          label="Request ID"
          invalid="Enter a request ID (a UUID, as a failure's Details show it), or leave it empty for every request."
          clear="Show every request"
          anyCase
        />
        <IdFilter
          param="about"
          name="Filter by what it is about"
          label="About (identity ID, client ID or setting key)"
          invalid="Enter an identity ID, an OAuth client ID or a setting key (at most 255 characters, on one line), or leave it empty for everything."
          clear="Show events about anything"
          valid={ABOUT_PATTERN}
        />
        <FilterSelect
          label="Action"
          value={action}
          all="All actions"
          options={ACTIONS}
          unknown="Unknown action"
          onChange={(chosen) => navigate(withQuery({ action: chosen, before: null, trail: null }))}
        />
      </div>
      {about && (
        // What the trail cannot tie to an identity (its path names a Kratos session, not whose it
        // is): said, so the list is not taken for all there is.
        <p class="hint">Not listed here, as their path names no identity: a single Kratos session of it revoked or extended. Filter by actor or request to find those.</p>
      )}
      <Region
        loaded={loaded}
        retry={retry}
        label="audit events"
        place={{
          firstPage: before ? withQuery({ before: null, trail: null }) : null,
          unfiltered: filtered ? withQuery({ action: null, actor: null, request_id: null, about: null, before: null, trail: null }) : null,
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
                    <Cell label="Action">{cellText(revealHidden(actionOf(event)))}</Cell>
                    <Cell label="Target" class="mono">
                      {IDENTITY_TARGETS.has(event.action) ? <IdentityRef value={event.target} /> : event.target === null ? '—' : cellText(revealHidden(event.target))}
                    </Cell>
                    <Cell label="Outcome">{outcomeOf(event).said}</Cell>
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
