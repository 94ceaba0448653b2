// Sessions (admin): active Kratos sessions across identities, paged with Kratos's page tokens;
// revoke or extend one, the list updating and the outcome announced.
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api, deleteOutcome, unknownOutcomeSaid, type ApiFailure, type KratosSession } from '../../api.ts'
import { Heading } from '../../components/heading.tsx'
import { EmptyList, FailureDetails, Region, useLoad, useResultsAnnounced } from '../../components/load.tsx'
import { ActionsCell, Cell, cellText, DataTable, Row, Wrappable } from '../../components/data-table.tsx'
import { ConfirmDialog } from '../../components/dialog.tsx'
import { Pager, useTokenPaging } from '../../components/pager.tsx'
import { announce, clearEarlierAnnouncement } from '../../components/status.ts'
import { UnreadableRows } from '../../components/unreadable.tsx'
import { location, useQueryState } from '../../router.ts'
import { DeviceCells, TimeCells } from '../../components/session-cells.tsx'
import { primaryIdentifier } from '../identities/describe.ts'
import { useSchemasOnce } from '../identities/schemas-once.ts'
import { unavailableWhile } from '../../components/one-at-a-time.ts'

export function SessionsPage() {
  const paging = useTokenPaging()
  const schemasOnce = useSchemasOnce()
  // Each session's identity is named by its schema's identifier markings, read once for the page.
  const [loaded, readAgain, replace] = useLoad(async () => {
    const [page, schemas] = await Promise.all([api.sessions({ page_size: paging.size, page_token: paging.token || undefined }), schemasOnce()])
    return page.ok ? { ...page, data: { ...page.data, schemas } } : page
  }, [location.value.search])
  const none = paging.token ? 'No more sessions.' : 'There are no active sessions.'
  // Another page or page size says what it shows, as the other lists do.
  useResultsAnnounced(loaded, location.value.search, ({ items }) => (items.length === 0 ? none : `${items.length} ${items.length === 1 ? 'session' : 'sessions'} shown.`))
  const [revoking, setRevoking] = useState<{ session: KratosSession; who: string } | null>(null)
  // A refused Revoke is said in its dialog; a refused Extend beside the row's buttons, where the
  // person is (focus stays on Extend), naming the session.
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  // It is about the list as it was read: another page, Back, Forward or Retry lets go of it.
  const [rowFailure, setExtendFailure] = useQueryState<{ sessionId: string; failure: ApiFailure }>()
  const retry = () => {
    setExtendFailure(null)
    readAgain()
  }
  const [busy, setBusy] = useState<string | null>(null)
  // After a Revoke, focus goes to the Revoke of the row that took the revoked one's place (of the
  // row before it, for the last row), as on the identity page: someone working down the list goes
  // on from there, not from the top of the page. Moved in the render that shows the list without
  // the row, before the closing question would hand focus back to a button that is gone.
  const tbody = useRef<HTMLTableSectionElement>(null)
  const [focusRow, setFocusRow] = useState<number | null>(null)
  useLayoutEffect(() => {
    if (focusRow === null || loaded.state !== 'ready') return
    setFocusRow(null)
    const buttons = tbody.current?.querySelectorAll<HTMLButtonElement>('button.revoke') ?? []
    buttons[Math.min(focusRow, buttons.length - 1)]?.focus()
  }, [focusRow, loaded])

  const revoke = async () => {
    if (!revoking || loaded.state !== 'ready' || busy !== null) return
    const { session, who } = revoking
    setBusy(session.id)
    // An earlier outcome would read, while this one is under way, as its own (as useOneAtATime does).
    clearEarlierAnnouncement()
    // A 404: Kratos no longer has it (revoked elsewhere first: Revoke all sessions deletes them).
    const result = deleteOutcome(await api.revokeSession(session.id))
    setBusy(null)
    if (!result.ok) return setFailure(result.failure)
    setFailure(null)
    setRevoking(null)
    replace({ ...loaded.data, items: loaded.data.items.filter((s) => s.id !== session.id) })
    setFocusRow(loaded.data.items.findIndex((s) => s.id === session.id))
    announce(result.already ? `Session of ${who} had already been revoked.` : `Session of ${who} revoked.`)
  }
  const extend = async (session: KratosSession, who: string) => {
    if (loaded.state !== 'ready' || busy !== null) return
    setBusy(session.id)
    clearEarlierAnnouncement()
    // Each attempt's outcome is said anew: the row's alert goes, so that a refusal with the same words is read out again.
    setExtendFailure(null)
    const result = await api.extendSession(session.id)
    setBusy(null)
    if (!result.ok && result.failure.maybeDone) {
      // Kratos may have extended it: not said to have failed; the list read again shows what it did.
      retry()
      clearEarlierAnnouncement()
      return setExtendFailure({ sessionId: session.id, failure: unknownOutcomeSaid(result.failure, `The session of ${who} may have been extended: the list has been read again.`) })
    }
    if (!result.ok) {
      // In place of an earlier outcome in the status region, as a failure shown elsewhere does.
      clearEarlierAnnouncement()
      return setExtendFailure({ sessionId: session.id, failure: { ...result.failure, message: `The session of ${who} was not extended. ${result.failure.message}` } })
    }
    setExtendFailure(null)
    // Kratos answers the extended session (with faster_session_extend: 204, then read it again). It
    // reads that session without its devices, so the row keeps the devices and identity it listed.
    if (result.data && typeof result.data === 'object' && result.data.id === session.id) {
      const extended = result.data
      replace({ ...loaded.data, items: loaded.data.items.map((s) => (s.id === session.id ? { ...s, ...extended, identity: s.identity, devices: s.devices } : s)) })
      // Kratos extends a session only once it is within `session.earliest_possible_extend` of its
      // expiry; before, it answers 200 with the session unchanged (persister_session.go ExtendSession).
      if (!(Date.parse(extended.expires_at ?? '') > Date.parse(session.expires_at ?? ''))) {
        return announce(`Kratos did not extend the session of ${who}: it extends a session only near its expiry (session.earliest_possible_extend), and this one is not there yet.`)
      }
      return announce(`Session of ${who} extended.`)
    }
    // The session could not be read after the extend: what Kratos did is in the list read again.
    retry()
    announce(`Kratos accepted the extend of the session of ${who}; the list has been read again.`)
  }

  return (
    <>
      <Heading>Sessions</Heading>
      <p class="muted">Active Kratos sessions across all identities.</p>
      {loaded.state === 'ready' && <UnreadableRows count={loaded.data.skipped} noun={['session', 'sessions']} from="kratos" />}
      <Region loaded={loaded} retry={retry} label="sessions" place={paging.place([])}>
        {({ items, skipped, schemas }) =>
          items.length === 0 ? (
            skipped === 0 && <EmptyList text={none} firstPage={paging.place([]).firstPage} />
          ) : (
            <DataTable caption="Active sessions" columns={['Identity', 'Authenticated', 'Expires', 'Device', 'IP address', 'Location', { hidden: 'Actions' }]} bodyRef={tbody}>
              {items.map((session) => {
                const who = session.identity ? primaryIdentifier(session.identity, schemas) : 'an unknown identity'
                return (
                  <Row key={session.id}>
                    <Cell label="Identity" class="identifier">
                      {session.identity ? (
                        <a href={`/dashboard/identities/${encodeURIComponent(session.identity.id)}`}>
                          <Wrappable text={cellText(who)} />
                        </a>
                      ) : (
                        '—'
                      )}
                    </Cell>
                    <TimeCells session={session} />
                    <DeviceCells session={session} />
                    <ActionsCell class="row-actions">
                      <button type="button" aria-label={`Extend session of ${who}`} {...unavailableWhile(busy === session.id, () => extend(session, who))}>
                        Extend
                      </button>
                      <button type="button" class="danger revoke" aria-label={`Revoke session of ${who}`} onClick={() => (setFailure(null), setRevoking({ session, who }))}>
                        Revoke
                      </button>
                      {rowFailure?.sessionId === session.id && (
                        <div class="row-error" role="alert">
                          <p>{rowFailure.failure.message}</p>
                          <FailureDetails failure={rowFailure.failure} />
                        </div>
                      )}
                    </ActionsCell>
                  </Row>
                )
              })}
            </DataTable>
          )
        }
      </Region>
      <Pager paging={paging} next={loaded.state === 'ready' ? loaded.data.next : null} />
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke session?"
        action="Revoke"
        busy={busy !== null}
        failure={failure}
        onConfirm={revoke}
        onClose={() => (setRevoking(null), setFailure(null))}
      >
        <p>{revoking?.who} is signed out on this device.</p>
      </ConfirmDialog>
    </>
  )
}
