// OAuth clients (admin, needs the Hydra admin API): the list with Hydra's `Link` paging and a
// search by name; create (the secret shown once, with Copy); a client's page edits it (a client made
// to use a secret gets a new one, asked first and shown once), replaces its secret, revokes its tokens and deletes it.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { signal } from '@preact/signals'
import type { ComponentChildren } from 'preact'
import { api, CLIENT_LIFESPANS, settledDelete, unknownOutcomeSaid, unreadable, type ApiFailure, type OAuthClient } from '../../api.ts'
import { Heading, focusHeading } from '../../components/heading.tsx'
import { EmptyList, ErrorView, Region, useLoad, useResultsAnnounced } from '../../components/load.tsx'
import { Cell, cellText, DataTable, Row } from '../../components/data-table.tsx'
import { ConfirmDialog, Dialog } from '../../components/dialog.tsx'
import { useOneAtATime } from '../../components/one-at-a-time.ts'
import { Pager, useTokenPaging } from '../../components/pager.tsx'
import { Time } from '../../components/time.tsx'
import { revealHidden } from '../../reveal.ts'
import { auditAbout } from '../../audit-words.ts'
import { announce, clearEarlierAnnouncement } from '../../components/status.ts'
import { pathRefusal } from '../../../src/proxy/path-refusal.ts'
import { CopyButton, ShownOnceValue } from '../../components/shown-once.tsx'
import { isUnreadable, UnreadableField, UnreadableRows } from '../../components/unreadable.tsx'
import { asLastShown, location, navigate, navigateFrom, queryParam, useLeaveGuard, useQueryState, useQueryText } from '../../router.ts'
import { ChangedNotice, useChangedNotice, whatStopsSave, type Members } from '../../components/changed-meanwhile.tsx'
import { same, staleMembers } from '../../components/json-patch.ts'
import { useUnsavedChanges } from '../../components/unsaved.ts'
import { takeDraft } from '../../drafts.ts'
import {
  ClientForm,
  clientBody,
  clientPatch,
  clientUpdate,
  draftOf,
  draftText,
  hasInlineJwks,
  fieldText,
  LIFESPAN_NAMES,
  FORM_FIELDS,
  formMembers,
  grantName,
  needsNewSecret,
  neverExpires,
  newClientSecret,
  rebaseDraft,
  secretPatch,
  signsPeopleIn,
  usesSecret,
  WHOLE_FIELD_NAMES,
  type ClientDraft,
} from './form.tsx'

/** The secret of the client just created: in memory only, shown once on its page, gone on reload. */
const createdSecret = signal<{ clientId: string; secret: string } | null>(null)

/** Hydra's refusals are not shown (they are upstream text); this says what to check instead. */
function clientFailure(failure: ApiFailure): ApiFailure {
  if (failure.status === 400)
    return {
      ...failure,
      message:
        'Hydra refused these client settings. Check the redirect URIs, the post-logout redirect URIs (each on the scheme, host and port of a redirect URI), the grant and response types, and the authentication method (a private_key_jwt client’s JWKS URI included).',
    }
  if (failure.status === 404) return { ...failure, message: 'Hydra has no client with this ID any more: it has been deleted, perhaps elsewhere.' }
  if (failure.status === 409) return { ...failure, message: 'A client with this ID already exists.' }
  return failure
}

const isPublic = (client: OAuthClient) => client.token_endpoint_auth_method === 'none'

/**
 * The client read again, and its form's fields (`formMembers`). Nothing is saved when it cannot be
 * read: whether the save would overwrite a change is unknown.
 */
async function readClientAgain(clientId: string, doing: 'save' | 'reload'): Promise<{ ok: true; client: OAuthClient; now: Members } | { ok: false; failure: ApiFailure }> {
  // Before a save, the read is part of the change: a session found gone here loses that change.
  const read = await api.client(clientId, doing === 'save' ? 'change' : 'show')
  const before = doing === 'save' ? 'Nothing was saved: the client could not be read again to check that it has not changed since the page loaded.' : 'The client could not be read again.'
  if (!read.ok) {
    const message = read.failure.status === 404 ? 'Hydra has no client with this ID any more: it has been deleted, perhaps elsewhere.' : read.failure.message
    return { ok: false, failure: { ...read.failure, message: `${before} ${message}` } }
  }
  if (isUnreadable(read.data, ...FORM_FIELDS)) return unreadable('Hydra', read.requestId, `${before} Hydra answered it with fields this page cannot show.`)
  return { ok: true, client: read.data, now: formMembers(read.data) }
}

const CHANGED_BY = 'by another operator or a tool using Hydra’s API'
/** The fields whose names are singular: "The scope was changed", but "The grant types were changed". */
const SINGULAR_FIELDS = new Set(['scope', 'audience'])

/** "The redirect URIs", "The redirect URIs and the scope": the subject of "was changed meanwhile". */
const fieldNames = (keys: string[]) => {
  const names = keys.map((key) => `the ${WHOLE_FIELD_NAMES[key] ?? key}`)
  const joined = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0]!
  return joined.charAt(0).toUpperCase() + joined.slice(1)
}

/** What Create client and Edit client keep through the sign-in (drafts.ts): a client form holds no secret. */
interface CreateDraft {
  draft: ClientDraft
}
interface EditDraft extends CreateDraft {
  /** The client as it was when the form was filled: what the edit is measured against. */
  base: OAuthClient
}
const isClientDraft = (draft: unknown): draft is ClientDraft => {
  const value = draft as Partial<ClientDraft> | null
  return !!value && typeof value.client_name === 'string' && Array.isArray(value.grant_types) && Array.isArray(value.response_types) && typeof value.lifespans === 'object'
}
/**
 * A kept draft as this form holds one. A draft kept by an older build (across an upgrade during the
 * sign-in) gets what its form had no field for from the client it edits: the JWKS URI and inline
 * keys, and the lifespans (the JWT bearer and device authorization grants' came later).
 */
const withCurrentFields = (draft: ClientDraft, base: OAuthClient | null): ClientDraft => ({
  ...draft,
  jwks_uri: typeof draft.jwks_uri === 'string' ? draft.jwks_uri : (base?.jwks_uri ?? ''),
  inline_jwks: typeof draft.inline_jwks === 'boolean' ? draft.inline_jwks : hasInlineJwks(base),
  lifespans: { ...draftOf(base).lifespans, ...draft.lifespans },
})
const keptCreate = (data: unknown): CreateDraft | null =>
  isClientDraft((data as CreateDraft | null)?.draft) ? { draft: withCurrentFields((data as CreateDraft).draft, null) } : null
const keptEdit = (data: unknown): EditDraft | null => {
  const base = (data as EditDraft | null)?.base
  return isClientDraft((data as EditDraft | null)?.draft) && typeof base?.client_id === 'string' ? { base, draft: withCurrentFields((data as EditDraft).draft, base) } : null
}
/** The client without its secret or registration token: what a draft may hold of it. */
function withoutSecrets(client: OAuthClient): OAuthClient {
  const { client_secret: _secret, registration_access_token: _token, ...rest } = client as OAuthClient & { registration_access_token?: unknown }
  return rest
}

/** A client as the pages name it: its name, else its id, with any character that would hide or disguise it made visible. */
/** A client by its name, or by its id when the name is empty or only spaces (nothing to read or click). */
const clientName = (client: OAuthClient) => revealHidden(client.client_name?.trim() ? client.client_name : client.client_id)

export function OAuthClientsPage() {
  const paging = useTokenPaging()
  const name = queryParam('name') ?? ''
  const [typed, setTyped] = useQueryText(name)
  // Back from the sign-in after the session ended at Create: the dialog opens again with its draft.
  const [kept] = useState(() => keptCreate(takeDraft('client-create')))
  const [creating, setCreating] = useState(kept !== null)
  const [draft, setDraft] = useState<ClientDraft>(() => kept?.draft ?? draftOf(null))
  const [busy, oneAtATime] = useOneAtATime()
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  // A create whose outcome is unknown (Hydra did not answer in time): said above the list, read again,
  // and Create client opens with its draft. Both belong to the list as it was then: another search or
  // page (Back included) lets go of them, as the Identities page's go() does.
  const [unknown, setUnknown] = useQueryState<ApiFailure>()
  const unsaved = useUnsavedChanges(creating && !same(draft, draftOf(null)) ? 'the new client' : null, { form: 'client-create', data: { draft } satisfies CreateDraft })
  const [loaded, retry] = useLoad(() => api.clients({ page_size: paging.size, page_token: paging.token || undefined, client_name: name || undefined }), [location.value.search])
  const none = paging.token ? 'No more clients.' : name ? 'No client has this name: names are matched whole, exactly as written.' : 'There are no OAuth clients yet.'
  useResultsAnnounced(loaded, location.value.search, ({ items }) => (items.length === 0 ? none : `${items.length} ${items.length === 1 ? 'client' : 'clients'} shown.`))
  const create = (draft: ClientDraft) =>
    oneAtATime(async () => {
      setUnknown(null)
      const result = await unsaved.send(() => api.createClient(clientBody(draft)))
      if (!result.ok && result.failure.maybeDone) {
        // Another Create could make a second client: the dialog closes (the draft is kept for
        // Create client) and the list is read again, so the operator sees whether it is there.
        const secret = !usesSecret(draft.token_endpoint_auth_method) ? '' : ' If it is, its secret cannot be shown any more: Replace secret on its page gives it a new one.'
        setUnknown(unknownOutcomeSaid(result.failure, `The client may have been created: check the list before creating it again.${secret}`))
        setCreating(false)
        retry()
        return
      }
      if (!result.ok) return setFailure(clientFailure(result.failure))
      setCreating(false)
      // Saved: opening the client loses nothing.
      unsaved.release()
      const client = result.data
      // Hydra makes a secret for every client but a public one; one that signs its assertions with
      // its key (private_key_jwt) never uses it, so it is not handed out as if it were its credential.
      const secret = client.client_secret && usesSecret(client.token_endpoint_auth_method) ? client.client_secret : null
      if (secret) createdSecret.value = { clientId: client.client_id, secret }
      // Said in words: the secret itself is not read out (see ShownOnceValue).
      announce(secret ? `Client ${clientName(client)} created; its secret is shown once, below.` : `Client ${clientName(client)} created.`)
      navigate(`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`)
    })
  return (
    <>
      <Heading>OAuth clients</Heading>
      <div class="toolbar">
        <form class="search" role="search" aria-label="OAuth clients" onSubmit={(e) => (e.preventDefault(), paging.restart({ name: typed.trim() || null }))}>
          <label for="clients-name">
            Search clients by name
          </label>
          <input id="clients-name" type="search" placeholder="Exact client name" value={typed} autocomplete="off" autocapitalize="none" autocorrect="off" spellcheck={false} onInput={(e) => setTyped(e.currentTarget.value)} />
          <button type="submit">Search</button>
          {name && (
            // The button goes with the search: focus goes to the box, for the next search.
            <button type="button" onClick={() => (document.getElementById('clients-name')?.focus(), paging.restart({ name: null }))}>
              Show all
            </button>
          )}
        </form>
        <button type="button" class="primary" onClick={() => (setFailure(null), unknown === null && setDraft(draftOf(null)), setCreating(true))}>
          Create client
        </button>
      </div>
      {unknown && <ErrorView failure={unknown} />}
      {loaded.state === 'ready' && <UnreadableRows count={loaded.data.skipped} noun={['client', 'clients']} from="hydra" />}
      <Region loaded={loaded} retry={retry} label="OAuth clients" place={paging.place(['name'])}>
        {({ items, skipped }) =>
          items.length === 0 ? (
            skipped === 0 && <EmptyList text={none} firstPage={paging.place([]).firstPage} />
          ) : (
            <DataTable caption="OAuth clients" columns={['Name', 'Client ID', 'Type', 'Grant types', 'Created']}>
              {items.map((client) => (
                <Row key={client.client_id}>
                  <Cell label="Name" class="text">
                    <a href={`/dashboard/oauth-clients/${encodeURIComponent(client.client_id)}`}>{cellText(clientName(client))}</a>
                  </Cell>
                  <Cell label="Client ID" class="mono identifier">
                    {cellText(revealHidden(client.client_id))}
                  </Cell>
                  <Cell label="Type">{isPublic(client) ? 'Public' : 'Confidential'}</Cell>
                  <Cell label="Grant types">{cellText((client.grant_types ?? []).map((grant) => revealHidden(grantName(grant))).join(', ')) || '—'}</Cell>
                  <Cell label="Created">
                    <Time value={client.created_at} />
                  </Cell>
                </Row>
              ))}
            </DataTable>
          )
        }
      </Region>
      <Pager paging={paging} next={loaded.state === 'ready' ? loaded.data.next : null} />
      <Dialog open={creating} title="Create client" onClose={() => setCreating(false)} unsaved={unsaved.pending}>
        {failure && <ErrorView failure={failure} />}
        <ClientForm draft={draft} onDraft={setDraft} submitLabel="Create client" busy={busy} onSubmit={create} onCancel={() => setCreating(false)} />
      </Dialog>
    </>
  )
}

export function OAuthClientPage({ params }: { params: Record<string, string> }) {
  const clientId = params.id!
  // Hydra takes any text as a client's ID, but the service passes on no path that could reach
  // another route (src/proxy/path-refusal.ts): such a client cannot be read here, and Retry would
  // never change that.
  return pathRefusal(`/admin/clients/${encodeURIComponent(clientId)}`) === null ? <ClientPage clientId={clientId} /> : <UnreachableClient clientId={clientId} />
}

function UnreachableClient({ clientId }: { clientId: string }) {
  return (
    <>
      <p class="breadcrumb">
        <a href={asLastShown('/dashboard/oauth-clients')}>OAuth clients</a>
      </p>
      <Heading>{revealHidden(clientId)}</Heading>
      <div class="notice page-notice">
        <p>
          This client cannot be opened here. Its ID holds what the dashboard never passes on to Hydra in a path (a “/”, “\”, “@” or “%”, a control
          character, or a “.” or “..” on its own), as such a path could reach another of Hydra's routes. Use Hydra's own CLI or admin API for this client.
        </p>
        <p>
          <a href={asLastShown('/dashboard/oauth-clients')}>Go to OAuth clients</a>
        </p>
      </div>
    </>
  )
}

function ClientPage({ clientId }: { clientId: string }) {
  const [loaded, retry, replace] = useLoad(() => api.client(clientId), [clientId])
  const title = loaded.state === 'ready' ? clientName(loaded.data) : 'OAuth client'
  return (
    <>
      <p class="breadcrumb">
        <a href={asLastShown('/dashboard/oauth-clients')}>OAuth clients</a>
      </p>
      <Heading>{title}</Heading>
      <Region loaded={loaded} retry={retry} label="the client" missing={{ said: 'Hydra has no OAuth client with this ID.', list: { href: asLastShown('/dashboard/oauth-clients'), name: 'OAuth clients' } }}>
        {(client) => <ClientDetail client={client} onChange={replace} />}
      </Region>
    </>
  )
}

/**
 * A client secret to show once: `uncertain` when it was sent in a change Hydra did not answer in
 * time (it may be the client's secret now, or not: Hydra keeps only a hash, so this page is the
 * only place it can be seen).
 */
interface ShownSecret {
  value: string
  uncertain?: boolean
}

/**
 * Whether a change refused with this failure may still have been made by Hydra: anything but a
 * refusal of the request itself (4xx). No answer in time (504), an answer cut short (502), one
 * that cannot be read, or none at all may all follow a change Hydra made. A secret sent in such a
 * change is kept on screen: Hydra keeps only its hash, so it is the only copy there will ever be.
 */
const mayHaveTakenEffect = (failure: ApiFailure) => failure.status === 0 || failure.status >= 500 || failure.error === 'invalid_response'

function OneTimeSecret({ secret, onDismiss }: { secret: ShownSecret | null; onDismiss: () => void }) {
  useLeaveGuard(secret ? 'The client secret is shown only once: leaving this page loses it for good.' : null)
  if (!secret) return null
  const dismiss = () => {
    // "…shown once, below" would stay on screen for its seconds with nothing below.
    clearEarlierAnnouncement()
    onDismiss()
    focusHeading()
  }
  return (
    <section class="card one-time" aria-labelledby="secret-h">
      <h2 id="secret-h" tabIndex={-1}>
        Client secret
      </h2>
      <p id="secret-note">Shown once: copy it now. Hydra stores only a hash of it.</p>
      {secret.uncertain && (
        <p>
          Hydra's answer did not come through, so whether this is now the client's secret is not known. Keep it: if the client cannot authenticate with it, use Replace secret.
        </p>
      )}
      <ShownOnceValue id="client-secret" value={secret.value} labelledBy="secret-h" describedBy="secret-note" />
      <div class="actions">
        <CopyButton value={secret.value} />
        <button type="button" aria-label="Dismiss the client secret" onClick={dismiss}>
          Dismiss
        </button>
      </div>
    </section>
  )
}

function ClientDetail({ client, onChange }: { client: OAuthClient; onChange: (client: OAuthClient) => void }) {
  // Back from the sign-in after the session ended at Save: the form opens again with its draft.
  const [kept] = useState(() => keptEdit(takeDraft('client-edit')))
  const [editing, setEditing] = useState(kept !== null)
  const [busy, oneAtATime] = useOneAtATime()
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [confirm, setConfirm] = useState<'delete' | 'revoke' | 'secret' | 'save' | null>(null)
  // The secret shown once: the one of the client just created (read once: leaving the page or
  // reloading forgets it), or one this page has just set.
  const [secret, setSecret] = useState<ShownSecret | null>(() => (createdSecret.value?.clientId === client.client_id ? { value: createdSecret.value.secret } : null))
  useEffect(() => {
    createdSecret.value = null
  }, [])
  // A secret this page has just set: focus goes to it, in the render that shows it or, while the
  // question that led to it is still open (the page behind it takes no focus), in the one that closes it.
  const secretShown = useRef(false)
  useLayoutEffect(() => {
    if (!secret || !secretShown.current || confirm !== null) return
    secretShown.current = false
    document.getElementById('secret-h')?.focus()
  }, [secret, confirm])
  const showSecret = (shown: ShownSecret) => {
    secretShown.current = true
    setSecret(shown)
  }
  /** After a failed change that sent `sent` as the client's secret: when Hydra may have made it anyway, the secret stays on screen, marked uncertain (true). */
  const keptUncertain = (sent: string, failure: ApiFailure) => {
    if (!mayHaveTakenEffect(failure)) return false
    showSecret({ value: sent, uncertain: true })
    return true
  }
  const [draft, setDraft] = useState<ClientDraft>(() => kept?.draft ?? draftOf(client))
  // The client as it was when the form was filled: what the edit is measured against.
  const [base, setBase] = useState<OAuthClient>(() => kept?.base ?? client)
  const [changed, setChanged, stopped] = useChangedNotice(setFailure)
  const saveButton = useRef<HTMLButtonElement>(null)
  // This edit's Save, asked about and answered Save, sent a new secret and its answer did not come
  // through: Hydra may have made the change. Only a Save again of this very edit is then not asked
  // again (it reads the client first); leaving the edit, saving it or reloading it forgets it.
  const sentUnanswered = useRef(false)
  const unsaved = useUnsavedChanges(editing && !same(draft, draftOf(base)) ? 'the client' : null, { form: 'client-edit', data: { draft, base: withoutSecrets(base) } satisfies EditDraft })
  const name = clientName(client)
  const startEditing = () => {
    setFailure(null)
    setChanged(null)
    setDraft(draftOf(client))
    setBase(client)
    sentUnanswered.current = false
    setEditing(true)
  }
  const stopEditing = () => {
    setChanged(null)
    sentUnanswered.current = false
    setEditing(false)
  }
  // Cancel: focus goes back to Edit client, in the render that shows it again, as a dialog's goes
  // back to what opened it (the form and its Cancel are gone, and the section's heading is no place
  // to go on from).
  const editButton = useRef<HTMLButtonElement>(null)
  const cancelled = useRef(false)
  useLayoutEffect(() => {
    if (editing || !cancelled.current) return
    cancelled.current = false
    editButton.current?.focus()
  }, [editing])
  const cancelEditing = () => {
    cancelled.current = true
    stopEditing()
  }
  // A Save that was asked about first (askToSave) keeps its question open, busy, until it is done:
  // what it found is then said on the page and in the form, as for any other Save. (Another
  // question, opened while a Save ran, is left open.)
  const save = (draft: ClientDraft) =>
    oneAtATime(() =>
      unsaved.send(async () => {
        const patch = clientPatch(base, draft)
        if (patch.length === 0) {
          setFailure(null)
          stopEditing()
          return announce('Nothing was changed.')
        }
        // Read again once at most, for the changed-meanwhile check and the method below both.
        let reading: ReturnType<typeof readClientAgain> | null = null
        const readNow = () => (reading ??= readClientAgain(client.client_id, 'save'))
        // A list is set whole: first make sure nobody changed it since the form was filled.
        const stop = await whatStopsSave(readNow, formMembers(base), formMembers(clientUpdate(base, draft)), {
          what: fieldNames,
          storedLabel: (key) => `Stored ${WHOLE_FIELD_NAMES[key] ?? key}`,
          text: fieldText,
        })
        if (stop) return stopped(stop)
        // Made to use a secret: a new one in the same patch, shown once (see needsNewSecret). Read
        // again first (the check above may have): someone who made the same change meanwhile has a
        // secret in use, which a new one would end.
        let newSecret: string | null = null
        if (needsNewSecret(base, draft)) {
          const read = await readNow()
          if (!read.ok) return setFailure(read.failure)
          if (usesSecret(read.client.token_endpoint_auth_method)) {
            // This edit's own earlier Save, whose answer never came, may have made it, or someone
            // else: Hydra keeps only a hash, so whether the secret on screen is the client's stays
            // unknown (it stays marked so). Nothing is sent again. A secret marked uncertain by
            // anything else (Replace secret, an earlier edit) says nothing about this change.
            if (sentUnanswered.current) {
              setFailure(null)
              stopEditing()
              onChange(read.client)
              return announce(
                `${clientName(read.client)} uses a secret now. Whether it is the one shown cannot be told: Hydra keeps only a hash of it. If the client cannot authenticate with it, use Replace secret.`,
              )
            }
            return setFailure({
              error: 'conflict',
              status: 409,
              message: `Nothing was saved: the client's token endpoint authentication was changed meanwhile to one that uses a secret, perhaps by someone who is using it. Reload the page to see it; Replace secret gives the client a new one.`,
            })
          }
          newSecret = newClientSecret()
        }
        const result = await api.patchClient(client.client_id, newSecret === null ? patch : [...patch, secretPatch(newSecret)])
        if (!result.ok) {
          if (newSecret !== null && keptUncertain(newSecret, result.failure)) sentUnanswered.current = true
          return setFailure(clientFailure(result.failure))
        }
        setFailure(null)
        stopEditing()
        const updated = withoutSecrets(result.data)
        onChange(updated)
        if (newSecret === null) return announce(`Client ${clientName(updated)} saved.`)
        showSecret({ value: newSecret })
        announce(`Client ${clientName(updated)} saved with a new secret, shown once: copy it now.`)
      }).finally(() => setConfirm((open) => (open === 'save' ? null : open))),
    )
  // Made to use a secret, the client gets a new one that its applications must be given: asked first,
  // as Replace secret asks. Not again at a Save again of this edit after the answer to its own
  // answered question did not come through (the secret sent then is on screen): that Save reads the
  // client before it sends anything more.
  const askToSave = (draft: ClientDraft) => (needsNewSecret(base, draft) && !sentUnanswered.current ? (setFailure(null), setConfirm('save')) : save(draft))
  // Reload: the client as stored now, with the edit's other changes kept (the fields that changed
  // meanwhile take the stored value); the operator's own version of those is kept in the notice.
  const reload = () =>
    oneAtATime(async () => {
      if (!changed) return
      const read = await readClientAgain(client.client_id, 'reload')
      if (!read.ok) return setFailure(read.failure)
      setFailure(null)
      sentUnanswered.current = false
      const stale = [...new Set([...changed.stale, ...staleMembers(formMembers(base), formMembers(clientUpdate(base, draft)), read.now)])]
      setDraft(rebaseDraft(draftOf(base), draft, draftOf(read.client), stale))
      setBase(read.client)
      setChanged({ ...changed, stale, what: fieldNames(stale), yours: stale.map((key) => ({ label: `Your ${WHOLE_FIELD_NAMES[key] ?? key}, not saved`, text: draftText(draft, key) })) })
      onChange(read.client)
      announce(`Reloaded the stored ${stale.map((key) => WHOLE_FIELD_NAMES[key] ?? key).join(', ')}; your version is kept below to copy from.`)
    })
  const dismiss = () => {
    setChanged(null)
    saveButton.current?.focus()
  }
  const remove = () => {
    const from = location.peek().path
    return oneAtATime(async () => {
      const result = await settledDelete(await api.deleteClient(client.client_id), () => api.client(client.client_id), 'the client')
      if (!result.ok) return setFailure(result.failure)
      setConfirm(null)
      navigateFrom(from, '/dashboard/oauth-clients')
      announce(result.already ? `Client ${name} had already been deleted.` : `Client ${name} deleted.`)
    })
  }
  const revoke = () =>
    oneAtATime(async () => {
      const result = await api.revokeClientTokens(client.client_id)
      if (!result.ok) return setFailure(result.failure)
      setConfirm(null)
      setFailure(null)
      announce(`The access tokens of ${name} were revoked.`)
    })
  // The old secret stops working at once: Hydra v26 keeps no rotated secrets (see newClientSecret).
  const replaceSecret = () =>
    oneAtATime(async () => {
      const newSecret = newClientSecret()
      const result = await api.patchClient(client.client_id, [secretPatch(newSecret)])
      if (!result.ok) {
        if (keptUncertain(newSecret, result.failure)) setConfirm(null)
        return setFailure(clientFailure(result.failure))
      }
      setConfirm(null)
      setFailure(null)
      showSecret({ value: newSecret })
      onChange(withoutSecrets(result.data))
      announce(`${name} has a new secret, shown once: copy it now.`)
    })
  // A refusal is shown in the dialog it answers; closing the dialog dismisses it.
  const closeConfirm = () => (setConfirm(null), setFailure(null))
  const list = (values: string[] | null | undefined) => (values && values.length > 0 ? values.map(revealHidden).join(', ') : '—')
  // A field Hydra sent in another shape is marked, never shown as empty; when the form has it, the
  // form (which would fill it with its defaults and send them) is not offered.
  const editable = !isUnreadable(client, ...FORM_FIELDS)
  const shown = (field: string, value: ComponentChildren) => (isUnreadable(client, field) ? <span class="muted unreadable-value">Cannot be shown</span> : value)
  // Only the lifespans set (Hydra answers null for its default), one line per grant, so that the
  // list stays short on a phone.
  const lifespans = CLIENT_LIFESPANS.filter((name) => client[name] || isUnreadable(client, name))
  const lifespanGrants = [...new Set(lifespans.map((name) => LIFESPAN_NAMES[name].grant))]
  return (
    <div class="sections">
      <OneTimeSecret secret={secret} onDismiss={() => setSecret(null)} />
      {failure && confirm === null && <ErrorView failure={failure} />}
      {editing ? (
        <section class="card" aria-labelledby="edit-client-h">
          <h2 id="edit-client-h">Edit client</h2>
          <ClientForm draft={draft} onDraft={setDraft} stored={base} submitLabel="Save" busy={busy} onSubmit={askToSave} onCancel={cancelEditing} submitRef={saveButton}>
            {changed && (
              <ChangedNotice
                id="client-changed"
                changed={changed}
                record="client"
                by={CHANGED_BY}
                plural={changed.stale.length > 1 || !SINGULAR_FIELDS.has(changed.stale[0]!)}
                where={changed.stale.length > 1 ? 'fields' : 'field'}
                busy={busy}
                onReload={reload}
                onDismiss={dismiss}
                focusField={() => document.getElementById(`client-${changed.stale[0]}`)?.focus()}
              />
            )}
          </ClientForm>
        </section>
      ) : (
        <section class="card" aria-labelledby="client-h">
          <h2 id="client-h">Client</h2>
          {client.unreadable && (
            <UnreadableField
              what="some of this client's fields"
              from="hydra"
              consequence={editable ? 'They are marked below.' : 'They are marked below, and the client cannot be edited here.'}
            />
          )}
          <dl class="facts">
            <dt>Client ID</dt>
            <dd class="mono">{revealHidden(client.client_id)}</dd>
            <dt>Type</dt>
            <dd>{shown('token_endpoint_auth_method', isPublic(client) ? 'Public (no secret)' : 'Confidential')}</dd>
            <dt>Token endpoint authentication</dt>
            <dd class="mono">{shown('token_endpoint_auth_method', client.token_endpoint_auth_method ?? 'client_secret_basic')}</dd>
            {(client.jwks_uri || isUnreadable(client, 'jwks_uri')) && (
              <>
                <dt>JWKS URI</dt>
                <dd class="mono">{shown('jwks_uri', revealHidden(client.jwks_uri ?? ''))}</dd>
              </>
            )}
            <dt>Redirect URIs</dt>
            <dd class="mono">{shown('redirect_uris', list(client.redirect_uris))}</dd>
            <dt>Post-logout redirect URIs</dt>
            <dd class="mono">{shown('post_logout_redirect_uris', list(client.post_logout_redirect_uris))}</dd>
            <dt>Grant types</dt>
            {/* Named as the form names them, each kept whole on its line. */}
            <dd>{shown('grant_types', list(client.grant_types?.map((grant) => grantName(grant).replaceAll(' ', '\u00a0'))))}</dd>
            <dt>Response types</dt>
            <dd>{shown('response_types', list(client.response_types))}</dd>
            <dt>Scope</dt>
            <dd class="mono">{shown('scope', revealHidden(client.scope ?? '') || '—')}</dd>
            <dt>Audience</dt>
            <dd class="mono">{shown('audience', list(client.audience))}</dd>
            <dt>Skip consent</dt>
            <dd>{shown('skip_consent', client.skip_consent ? 'Yes' : 'No')}</dd>
            <dt>Token lifespans</dt>
            <dd>
              {lifespans.length === 0 ? (
                'Hydra’s defaults'
              ) : (
                <ul class="plain">
                  {lifespanGrants.map((grant) => (
                    <li key={grant}>
                      {grant}:{' '}
                      {lifespans
                        .filter((name) => LIFESPAN_NAMES[name].grant === grant)
                        .map((name, index) => (
                          <span key={name}>
                            {index > 0 && ', '}
                            {LIFESPAN_NAMES[name].token}{' '}
                            {shown(name, neverExpires(name, client[name] ?? '') ? 'never expires' : <span class="mono">{client[name]}</span>)}
                          </span>
                        ))}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
            <dt>Created</dt>
            <dd>{shown('created_at', <Time value={client.created_at} />)}</dd>
            <dt>Updated</dt>
            <dd>{shown('updated_at', <Time value={client.updated_at} />)}</dd>
            <dt>Audit</dt>
            <dd>
              <a href={auditAbout(client.client_id)}>Audit events about this client</a>
            </dd>
          </dl>
          {editable && (
            <div class="actions">
              <button type="button" class="primary" ref={editButton} onClick={startEditing}>
                Edit client
              </button>
              {usesSecret(client.token_endpoint_auth_method) && (
                <button type="button" onClick={() => (setFailure(null), setConfirm('secret'))}>
                  Replace secret
                </button>
              )}
            </div>
          )}
        </section>
      )}
      <section class="card danger-zone" aria-labelledby="client-danger-h">
        <h2 id="client-danger-h">Tokens and deletion</h2>
        <div class="actions">
          <button type="button" onClick={() => (setFailure(null), setConfirm('revoke'))}>
            Revoke tokens
          </button>
          <button type="button" class="danger" onClick={() => (setFailure(null), setConfirm('delete'))}>
            Delete client
          </button>
        </div>
      </section>
      <ConfirmDialog open={confirm === 'revoke'} title="Revoke tokens?" action="Revoke" busy={busy} failure={failure} onConfirm={revoke} onClose={closeConfirm}>
        {/* Hydra's DELETE /admin/oauth2/tokens deletes the client's access tokens only (oauth2/handler.go
            deleteOAuth2Token, DeleteAccessTokens); its refresh tokens go with the client (ON DELETE CASCADE). */}
        <p>Every access token Hydra issued to {name} stops working. The client itself stays.</p>
        <p>
          Its refresh tokens are not revoked: they can still get new access tokens. To cut the client off entirely, delete it. An access token issued as a JWT stays
          valid until it expires wherever it is checked without asking Hydra.
        </p>
      </ConfirmDialog>
      <ConfirmDialog open={confirm === 'secret'} title="Replace the client secret?" action="Replace" busy={busy} failure={failure} onConfirm={replaceSecret} onClose={closeConfirm}>
        <p>{name} gets a new secret, shown once. The current secret stops working at once: applications using it cannot get tokens until they have the new one.</p>
      </ConfirmDialog>
      <ConfirmDialog open={confirm === 'save'} title="Save with a new secret?" action="Save" busy={busy} onConfirm={() => save(draft)} onClose={closeConfirm}>
        <p>
          {name} gets a new secret, shown once, and authenticates with it from now on. Any secret it had before stops working at once: applications using the client cannot
          get tokens until they are given the new one.
        </p>
      </ConfirmDialog>
      <ConfirmDialog open={confirm === 'delete'} title="Delete client?" action="Delete" busy={busy} failure={failure} onConfirm={remove} onClose={closeConfirm}>
        <p>
          {name} is deleted;{' '}
          {signsPeopleIn(client.grant_types)
            ? 'applications using it can no longer sign anyone in.'
            : 'whatever uses it can no longer get tokens.'}
        </p>
      </ConfirmDialog>
    </div>
  )
}
