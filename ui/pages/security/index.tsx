// Security (admin): the posture checks with what to do about each one that is not a pass, the
// effective configuration (never a secret: the service answers booleans for keys and URLs), and
// ending every dashboard session of an identity.
import { Fragment } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { api, sessionGone, type ApiFailure, type PostureCheck, type PublicConfig } from '../../api.ts'
import { Heading } from '../../components/heading.tsx'
import { Region, useLoad } from '../../components/load.tsx'
import { ConfirmDialog } from '../../components/dialog.tsx'
import { announce } from '../../components/status.ts'
import { config, isOwnIdentity, OWN_SESSIONS_ENDED, OWN_SESSIONS_NOTE, user } from '../../session.ts'
import { useFocusFirstInvalid } from '../../components/focus.ts'
import { useOneAtATime } from '../../components/one-at-a-time.ts'
import { revealHidden } from '../../reveal.ts'

const VERDICT: Record<PostureCheck['status'], { label: string; class: string }> = {
  pass: { label: 'Pass', class: 'state state-active' },
  warn: { label: 'Warning', class: 'state state-warn' },
  fail: { label: 'Failure', class: 'state state-inactive' },
}
const RANK: Record<PostureCheck['status'], number> = { fail: 0, warn: 1, pass: 2 }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function SecurityPage() {
  return (
    <>
      <Heading>Security</Heading>
      <div class="sections">
        <Posture />
        <EndSessions />
        <Configuration />
      </div>
    </>
  )
}

function Posture() {
  const [loaded, retry] = useLoad(() => api.posture(), [])
  return (
    <section class="card" aria-labelledby="posture-h">
      <h2 id="posture-h">Posture checks</h2>
      <Region loaded={loaded} retry={retry} label="posture checks">
        {({ checks }) => {
          const sorted = [...checks].sort((a, b) => RANK[a.status] - RANK[b.status])
          const failing = checks.filter((check) => check.status !== 'pass').length
          return (
            <>
              <p>{failing === 0 ? 'Every check passes.' : `${failing} of ${checks.length} checks ${failing === 1 ? 'needs' : 'need'} attention.`}</p>
              <ul class="plain checks">
                {sorted.map((check) => (
                  <li key={check.id} class={`check check-${check.status}`}>
                    <span class={VERDICT[check.status].class}>{VERDICT[check.status].label}</span> <span>{check.message}</span>
                    {check.remedy && (
                      <p class="remedy">
                        <strong>What to do:</strong> {check.remedy}
                      </p>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )
        }}
      </Region>
    </section>
  )
}

const yesNo = (value: unknown) => (value === true ? 'Yes' : value === false ? 'No' : String(value ?? '—'))

function Configuration() {
  const described = config.value as (PublicConfig & Record<string, unknown>) | null
  if (!described) return null
  const upstreams = Object.entries(described.upstreams)
  const rows: [string, string][] = [
    ['Version', String(described.version ?? '—')],
    ['Environment', String(described.environment ?? '—')],
    ['Sign-in configured', yesNo(described.login_configured)],
    ['Encryption available', yesNo(described.encryption_available)],
    ['Previous encryption key set', yesNo(described.previous_encryption_key_set)],
    ['Geo database', String(described.geo_database ?? '—')],
    ['Session lifetime', `${described.session_max_age_seconds ?? '—'} s`],
    ['Settings cache', `${described.settings_cache_ttl_seconds ?? '—'} s`],
    ['Identity recheck', `${described.identity_recheck_seconds ?? '—'} s`],
    ['Upstream timeout', `${described.proxy_timeout_ms ?? '—'} ms`],
    ['Log level', String(described.log_level ?? '—')],
  ]
  return (
    <section class="card" aria-labelledby="config-h">
      <h2 id="config-h">Effective configuration</h2>
      <dl class="facts">
        {rows.map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
      <h3>Upstreams</h3>
      <ul class="plain upstreams">
        {upstreams.map(([name, configured]) => (
          <li key={name}>
            <span class="mono">/api/{name}</span>: {configured ? 'configured' : 'not configured'}
          </li>
        ))}
      </ul>
    </section>
  )
}

/** Who an ID to end the dashboard sessions of is, as far as the login identity store says. */
type Who = { state: 'reading' } | { state: 'found'; name: string } | { state: 'missing' } | { state: 'unread' }

function EndSessions() {
  const [identityId, setIdentityId] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [confirming, setConfirming] = useState(false)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, oneAtATime] = useOneAtATime()
  const focusFirstInvalid = useFocusFirstInvalid()
  const own = isOwnIdentity(identityId)
  // Who the ID is, read from the login identity store as the question opens: a mistyped ID is
  // otherwise answered "ended" as readily as a real one (the service ends sessions by ID alone).
  const [who, setWho] = useState<Who>({ state: 'reading' })
  const lookup = useRef<Promise<Who>>(Promise.resolve({ state: 'unread' }))
  const ask = (event: Event) => {
    event.preventDefault()
    const value = identityId.trim()
    if (!UUID.test(value)) {
      setError('Enter an identity ID (a UUID such as 3f2504e0-4f89-41d3-9a0c-0305e82c3301).')
      return focusFirstInvalid(event.currentTarget as HTMLFormElement)
    }
    setError(null)
    setFailure(null)
    setWho({ state: 'reading' })
    setConfirming(true)
    const ownStore = config.value?.upstreams['iam-idp-admin'] === true
    const reading: Promise<Who> =
      !ownStore && config.value?.upstreams['idp-admin'] !== true
        ? Promise.resolve({ state: 'unread' })
        : api.loginIdentity(value, ownStore).then((read) =>
            read.ok
              ? { state: 'found', name: typeof read.data.traits?.email === 'string' ? read.data.traits.email : value }
              : read.failure.status === 404
                ? { state: 'missing' }
                : { state: 'unread' },
          )
    lookup.current = reading
    void reading.then((known) => lookup.current === reading && setWho(known))
  }
  const end = () =>
    oneAtATime(async () => {
      const value = identityId.trim()
      const result = await api.endDashboardSessions(value)
      if (!result.ok) return setFailure(result.failure)
      // Said by who it is, once the lookup (under way since the question opened) has answered.
      const known = await lookup.current
      setConfirming(false)
      setIdentityId('')
      announce(
        known.state === 'found'
          ? `Every dashboard session of ${known.name} has ended.`
          : known.state === 'missing'
            ? `No identity has the ID ${value}; any dashboard session of that ID has ended.`
            : `Every dashboard session of ${value} has ended.`,
      )
      // Said in the dialog: the way on is the sign-in, as it would be at the next click.
      if (own) sessionGone({ identityId: user.value!.identityId, said: OWN_SESSIONS_ENDED })
    })
  return (
    <section class="card" aria-labelledby="end-sessions-h">
      <h2 id="end-sessions-h">End dashboard sessions</h2>
      <p class="muted">Signs an identity out of this dashboard everywhere, at once. Its Kratos sessions are not touched.</p>
      <form class="form inline-form" onSubmit={ask} noValidate>
        <div class="field">
          <label for="end-sessions-id">Identity ID</label>
          <input
            id="end-sessions-id"
            class="mono"
            value={identityId}
            autocomplete="off"
            autocapitalize="none"
            autocorrect="off"
            spellcheck={false}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'end-sessions-error' : undefined}
            onInput={(e) => setIdentityId(e.currentTarget.value)}
          />
          {error && (
            <p class="field-error" id="end-sessions-error">
              {error}
            </p>
          )}
        </div>
        <div class="actions">
          <button type="submit" class="danger">
            End dashboard sessions
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title="End dashboard sessions?"
        action="End dashboard sessions"
        busy={busy}
        failure={failure}
        onConfirm={end}
        onClose={() => setConfirming(false)}
      >
        {who.state === 'found' ? (
          <p>
            Every dashboard session of <strong>{revealHidden(who.name)}</strong> (<span class="mono">{identityId.trim()}</span>) stops working now.
          </p>
        ) : (
          <p>
            Every dashboard session of <span class="mono">{identityId.trim()}</span> stops working now.
          </p>
        )}
        {who.state === 'reading' && <p class="muted">Looking up who this is…</p>}
        {who.state === 'missing' && (
          <p class="notice">The login identity store has no identity with this ID: check it for a typing mistake. An identity deleted since it signed in still has its sessions ended.</p>
        )}
        {who.state === 'unread' && <p class="muted">Who this is could not be read from the login identity store.</p>}
        {own && <p>{OWN_SESSIONS_NOTE}</p>}
      </ConfirmDialog>
    </section>
  )
}
