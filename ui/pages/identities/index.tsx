// Identities (admin): cursor-paged table, exact identifier search, create, bulk state changes.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, deleteOutcome, unknownOutcomeSaid, whyUnknown, type ApiFailure, type Identity } from '../../api.ts'
import { Heading } from '../../components/heading.tsx'
import { EmptyList, ErrorView, Region, toReport, useLoad, useResultsAnnounced } from '../../components/load.tsx'
import { Cell, cellText, DataTable, Row, SelectAll, SelectCell, Wrappable } from '../../components/data-table.tsx'
import { Dialog } from '../../components/dialog.tsx'
import { unavailableWhile, useOneAtATime } from '../../components/one-at-a-time.ts'
import { Time } from '../../components/time.tsx'
import { announce } from '../../components/status.ts'
import { UnreadableRows } from '../../components/unreadable.tsx'
import { PAGE_SIZES, PageSizeSelect, PreviousAndNumber } from '../../components/pager.tsx'
import { trailPaging } from '../../components/trail.ts'
import { location, navigate, queryParam, useQueryState, useQueryText, withQuery } from '../../router.ts'
import { CreateIdentity, keptCreateIdentity, type CreateIdentityDraft } from './create.tsx'
import { takeDraft } from '../../drafts.ts'
import { isOwnIdentity } from '../../session.ts'
import { displayName, primaryIdentifier } from './describe.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'
import { useSchemasOnce } from './schemas-once.ts'
import { MAX_IDENTIFIER_LENGTH } from '../../../src/identities/model.ts'

// GET /api/identities refuses a longer credentials_identifier (admin-api.md §Limits), counted in
// characters as src/identities/model.ts counts them. The box takes a longer text and says so at
// Search: cut to fit, a pasted identifier would be searched as another one and reported missing.
const MAX_SEARCH_LENGTH = MAX_IDENTIFIER_LENGTH
type BulkAction = 'deactivate' | 'activate' | 'delete'
const VERB: Record<BulkAction, string> = { deactivate: 'Deactivate', activate: 'Activate', delete: 'Delete' }
const PRESENT: Record<BulkAction, string> = { deactivate: 'Deactivating', activate: 'Activating', delete: 'Deleting' }
const STOPPING = 'Stopping after the current request…'

function pageSize(): number {
  const size = Number(queryParam('page_size'))
  return PAGE_SIZES.includes(size) ? size : PAGE_SIZES[0]!
}

export function IdentitiesPage() {
  const search = location.value.search
  const size = pageSize()
  const token = queryParam('page_token') ?? ''
  const trail = trailPaging(queryParam('trail'), token)
  const filter = queryParam('search') ?? ''
  const schemasOnce = useSchemasOnce()
  // Kratos lists identities without their credentials: each row is named by its schema's
  // identifier markings, read once for the page while its first rows are asked for.
  const [loaded, retry] = useLoad(async () => {
    const [page, schemas] = await Promise.all([api.identities({ page_size: size, page_token: token || undefined, credentials_identifier: filter || undefined }), schemasOnce()])
    return page.ok ? { ...page, data: { ...page.data, schemas } } : page
  }, [search])
  const schemas = loaded.state === 'ready' ? loaded.data.schemas : null
  const nameOf = (identity: Identity) => primaryIdentifier(identity, schemas)
  const none = token ? 'No more identities.' : filter ? `No identity has the identifier “${filter}”.` : 'There are no identities yet.'
  useResultsAnnounced(loaded, search, ({ identities }) => (identities.length === 0 ? none : `${identities.length} ${identities.length === 1 ? 'identity' : 'identities'} shown.`))
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [pending, setPending] = useState<BulkAction | null>(null)
  const [working, oneAtATime] = useOneAtATime()
  // How far a bulk action has gone, shown in its dialog; Cancel or Escape while it runs stops it
  // after the request under way.
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null)
  // How far it has gone, said from inside its dialog (the page's status region is behind it, out of
  // reach): every tenth of the way, not at each of hundreds of steps. Its end is the outcome, which
  // the page says once the dialog has closed.
  const [progressSaid, setProgressSaid] = useState('')
  const stopBulk = useRef(false)
  // Cancelled while a request was under way: the page says so until that request has been answered.
  const [stopping, setStopping] = useState(false)
  const [bulkFailure, setBulkFailure] = useState<ApiFailure | null>(null)
  // Back from the sign-in after the session ended at Create: the dialog opens again with its draft.
  const [keptDraft, setKeptDraft] = useState(() => keptCreateIdentity(takeDraft('create-identity')))
  const [creating, setCreating] = useState(keptDraft !== null)
  // Opened with once: closed, the dialog opens empty the next time.
  useEffect(() => {
    if (!creating) setKeptDraft(null)
  }, [creating])
  // What a Create of unknown outcome sent, for Create identity to open with should it not have been
  // made; it belongs to the list as it was then, as its notice does.
  const [unknownDraft, setUnknownDraft] = useQueryState<CreateIdentityDraft>()
  // A create whose outcome is unknown (Kratos did not answer in time): said above the list, read again.
  // It belongs to the list as it was then: another search or page (Back and Forward included) lets go of it.
  const [createUnknown, setCreateUnknown] = useQueryState<ApiFailure>()
  const [query, setQuery] = useQueryText(filter)
  // Said under the box until the next search, or until Back or Forward shows another list.
  const [searchError, setSearchError] = useQueryState<{ message: string }>()
  const focusFirstInvalid = useFocusFirstInvalid()

  const rows: Identity[] = loaded.state === 'ready' ? loaded.data.identities : []
  const visibleSelected = rows.filter((row) => selected.has(row.id))

  const go = (changes: Record<string, string | null>) => {
    setSelected(new Set())
    setBulkFailure(null)
    setCreateUnknown(null)
    navigate(withQuery(changes))
  }
  const next = () => {
    if (loaded.state !== 'ready' || !loaded.data.next_page_token) return
    go(trail.next(loaded.data.next_page_token))
  }
  const previous = () => trail.previous && go({ page_token: trail.previous.page_token, trail: trail.previous.trail })

  const runBulk = (action: BulkAction) => oneAtATime(() => changeEach(action))
  const changeEach = async (action: BulkAction) => {
    setBulkFailure(null)
    stopBulk.current = false
    const total = visibleSelected.length
    setProgress({ done: 0, total })
    setProgressSaid('')
    let attempted = 0
    const refused: { identity: Identity; failure: ApiFailure }[] = []
    // Kratos did not answer in time for these: they may have been changed (the list read again shows).
    const unknown: { identity: Identity; failure: ApiFailure }[] = []
    for (const identity of visibleSelected) {
      if (stopBulk.current) break
      attempted++
      // A delete answered 404 was done elsewhere first: what was asked for is so (as for one delete).
      const result =
        action === 'delete' ? deleteOutcome(await api.deleteIdentity(identity.id)) : await api.setState(identity.id, action === 'activate' ? 'active' : 'inactive')
      if (!result.ok && result.failure.maybeDone) unknown.push({ identity, failure: result.failure })
      else if (!result.ok) refused.push({ identity, failure: result.failure })
      setProgress({ done: attempted, total })
      if (attempted < total && Math.floor((attempted * 10) / total) > Math.floor(((attempted - 1) * 10) / total)) setProgressSaid(`${PRESENT[action]}: ${attempted} of ${total} done.`)
    }
    const notTried = visibleSelected.slice(attempted)
    setStopping(false)
    setProgress(null)
    // The run's progress is not carried into the next bulk question; its end is announced below.
    setProgressSaid('')
    setPending(null)
    const done = attempted - refused.length - unknown.length
    const past = { deactivate: 'deactivated', activate: 'activated', delete: 'deleted' }[action]
    const late = unknown[0]
    const unknownSaid = late ? ` ${unknown.length} may or may not have been: ${whyUnknown(late.failure)}.` : ''
    const stoppedSaid = notTried.length ? ` Cancelled: ${notTried.length} not changed.` : ''
    announce(`${done} ${done === 1 ? 'identity' : 'identities'} ${past}.${refused.length ? ` ${refused.length} could not be changed.` : ''}${unknownSaid}${stoppedSaid}`)
    // What could not be changed, or may not have been, stays selected for another try, with the
    // reason and the identifiers.
    setSelected(new Set([...refused, ...unknown].map(({ identity }) => identity.id).concat(notTried.map((identity) => identity.id))))
    const sentences: string[] = []
    const first = refused[0]
    if (first) sentences.push(`Not ${past}: ${refused.map(({ identity }) => nameOf(identity)).join(', ')}. ${first.failure.message}`)
    if (late) {
      const which = unknown.map(({ identity }) => nameOf(identity)).join(', ')
      sentences.push(`${whyUnknown(late.failure, which)}: they may have been ${past}. The list below has been read again: check it before trying again.`)
    }
    // Its Details give the ID of the first failure there is to report (a 5xx, a timeout), not of a
    // refusal the message already explains; each is in the log and the audit trail.
    const reported = [...refused, ...unknown].map(({ failure }) => failure).find(toReport)
    const shown = reported ?? first?.failure ?? late?.failure
    setBulkFailure(sentences.length && shown ? { error: shown.error, status: shown.status, message: sentences.join(' '), requestId: shown.requestId } : null)
    retry()
  }

  // Cancel or Escape: while the action runs, it stops after the request under way and says what was
  // done and what was not (the dialog closes at once; that a request is still under way is said at
  // once, the outcome when it is known).
  const closeBulk = () => {
    if (working && !stopBulk.current) {
      stopBulk.current = true
      setStopping(true)
      announce(STOPPING)
    }
    setPending(null)
  }

  const count = visibleSelected.length
  // Every row of this page, or none of them: 250 rows need not take 250 presses.
  const selectPage = (checked: boolean) => {
    const copy = new Set(selected)
    for (const row of rows) {
      if (checked) copy.add(row.id)
      else copy.delete(row.id)
    }
    setSelected(copy)
  }
  return (
    <>
      <Heading>Identities</Heading>
      <div class="toolbar">
        <form
          role="search"
          class="search"
          onSubmit={(event) => {
            event.preventDefault()
            const wanted = query.trim()
            const length = [...wanted].length
            if (length > MAX_SEARCH_LENGTH) {
              setSearchError({ message: `The search takes at most ${MAX_SEARCH_LENGTH} characters; this text has ${length}. A longer identifier cannot be searched for.` })
              return focusFirstInvalid(event.currentTarget)
            }
            setSearchError(null)
            go({ search: wanted || null, page_token: null, trail: null })
          }}
        >
          <label for="identity-search">Search identities</label>
          <input
            id="identity-search"
            type="search"
            autocapitalize="none"
            autocorrect="off"
            spellcheck={false}
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            placeholder="Exact e-mail or username"
            aria-invalid={searchError ? 'true' : undefined}
            aria-describedby={searchError ? 'identity-search-error' : undefined}
          />
          <button type="submit">Search</button>
          {filter && (
            // The button goes with the search: focus goes to the box, for the next search.
            <button
              type="button"
              onClick={() => (setQuery(''), setSearchError(null), document.getElementById('identity-search')?.focus(), go({ search: null, page_token: null, trail: null }))}
            >
              Clear search
            </button>
          )}
          {searchError && (
            <p class="field-error" id="identity-search-error">
              {searchError.message}
            </p>
          )}
        </form>
        <button type="button" class="primary" onClick={() => (setCreateUnknown(null), setCreating(true))}>
          Create identity
        </button>
      </div>
      <div class="toolbar bulk" aria-label="Selected identities" role="group">
        <span>{count === 0 ? 'No identity selected' : `${count} selected`}</span>
        {/* Not disabled while an action runs, only said to be: the button that opened a dialog
            cancelled meanwhile is where focus returns, and a disabled one cannot take it. */}
        {(['deactivate', 'activate', 'delete'] as const).map((action) => (
          <button key={action} type="button" disabled={count === 0} class={action === 'delete' ? 'danger' : ''} {...unavailableWhile(working, () => setPending(action))}>
            {VERB[action]}
          </button>
        ))}
        {stopping && <span>{STOPPING}</span>}
      </div>
      {createUnknown && <ErrorView failure={createUnknown} />}
      {bulkFailure && <ErrorView failure={bulkFailure} />}
      {loaded.state === 'ready' && <UnreadableRows count={loaded.data.skipped} noun={['identity', 'identities']} from="kratos" />}
      <Region
        loaded={loaded}
        retry={retry}
        label="identities"
        place={{
          firstPage: token ? withQuery({ page_token: null, trail: null }) : null,
          unfiltered: filter ? withQuery({ search: null, page_token: null, trail: null }) : null,
        }}
      >
        {(page) =>
          page.identities.length === 0 ? (
            page.skipped === 0 && (
              <EmptyList text={none} firstPage={token ? withQuery({ page_token: null, trail: null }) : null} />
            )
          ) : (
            <DataTable
              caption={`Identities, page ${trail.page}`}
              columns={[
                {
                  hidden: 'Selected',
                  control: <SelectAll label="Select all on this page" all={count === page.identities.length} some={count > 0} onChange={selectPage} />,
                },
                'Identifier',
                'Name',
                'State',
                'Created',
              ]}
            >
              {page.identities.map((identity) => {
                const identifier = nameOf(identity)
                return (
                  <Row key={identity.id}>
                    <SelectCell>
                      <input
                        type="checkbox"
                        aria-label={`Select ${identifier}`}
                        checked={selected.has(identity.id)}
                        onChange={(event) => {
                          const copy = new Set(selected)
                          if (event.currentTarget.checked) copy.add(identity.id)
                          else copy.delete(identity.id)
                          setSelected(copy)
                        }}
                      />
                    </SelectCell>
                    <Cell label="Identifier" class="identifier">
                      <a href={`/dashboard/identities/${encodeURIComponent(identity.id)}`}>
                        <Wrappable text={cellText(identifier)} />
                      </a>
                    </Cell>
                    <Cell label="Name" class="text">{cellText(displayName(identity)) || <span class="muted">—</span>}</Cell>
                    <Cell label="State">
                      <span class={`state state-${identity.state ?? 'active'}`}>{identity.state === 'inactive' ? 'Inactive' : 'Active'}</span>
                    </Cell>
                    <Cell label="Created">
                      <Time value={identity.created_at} />
                    </Cell>
                  </Row>
                )
              })}
            </DataTable>
          )
        }
      </Region>
      <div class="pager">
        <PreviousAndNumber page={trail.page} disabled={trail.previous === null} toFirst={trail.previous?.first === true} onClick={previous} />
        <button type="button" disabled={loaded.state !== 'ready' || !loaded.data.has_more} onClick={next}>
          Next page
        </button>
        <PageSizeSelect size={size} onChange={(chosen) => go({ page_size: chosen, page_token: null, trail: null })} />
      </div>
      <Dialog open={pending !== null} title={pending ? `${VERB[pending]} ${count} ${count === 1 ? 'identity' : 'identities'}?` : ''} onClose={closeBulk}>
        {pending && (
          <>
            <form method="dialog" onSubmit={(event) => (event.preventDefault(), runBulk(pending))} aria-busy={working ? 'true' : undefined}>
              <p>
                {pending === 'delete'
                  ? `This deletes ${count} ${count === 1 ? 'identity' : 'identities'} with their credentials and sessions. It cannot be undone.`
                  : `This changes the state of ${count} ${count === 1 ? 'identity' : 'identities'}.`}
              </p>
              {pending !== 'activate' && visibleSelected.some((identity) => isOwnIdentity(identity.id)) && (
                <p class="notice">Your own identity is among them: {pending === 'delete' ? 'deleted' : 'deactivated'}, it signs you out of the dashboard at once.</p>
              )}
              {progress && (
                <p class="bulk-progress">
                  <label for="bulk-progress">{`${progress.done} of ${progress.total}`}</label>{' '}
                  <progress id="bulk-progress" max={progress.total} value={progress.done} />
                </p>
              )}
              <div class="actions">
                <button type="submit" class={pending === 'delete' ? 'danger' : 'primary'} {...unavailableWhile(working)}>
                  {VERB[pending]}
                </button>
                {/* Opens on Cancel, as a ConfirmDialog does: Enter pressed twice changes nothing (a
                    deactivation of up to 250 identities stops them all signing in). */}
                <button type="button" autofocus onClick={closeBulk}>
                  Cancel
                </button>
              </div>
            </form>
            {/* Beside the busy form, not in it: what is inside a busy element may be held back until it is done. */}
            <p role="status" class="visually-hidden">
              {progressSaid}
            </p>
          </>
        )}
      </Dialog>
      <Dialog open={creating} title="Create identity" onClose={() => setCreating(false)}>
        {creating && (
          <CreateIdentity
            draft={keptDraft ?? unknownDraft}
            onCancel={() => (setUnknownDraft(null), setCreating(false))}
            onUnknown={(failure, draft) => {
              // Another Create could make it twice: the dialog closes and the list is read again;
              // Create identity opens with what was typed, should it not have been made.
              setUnknownDraft(draft)
              setCreating(false)
              setCreateUnknown(unknownOutcomeSaid(failure, 'The identity may have been created: search for it before creating it again.'))
              retry()
            }}
            onCreated={(identity) => {
              setUnknownDraft(null)
              setCreating(false)
              announce(`Identity ${nameOf(identity)} created.`)
              navigate(`/dashboard/identities/${encodeURIComponent(identity.id)}`)
            }}
          />
        )}
      </Dialog>
    </>
  )
}
