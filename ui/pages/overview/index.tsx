// Overview (both roles): the upstream services (checked again every 30 s while shown), the session
// map, and for admins the latest audit events; each identity arranges them (Customize), saved
// through the layout route.
import type { JSX } from 'preact'
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api, type ApiFailure, type Layout, type LocationPoint, type ServiceHealth } from '../../api.ts'
import { Heading } from '../../components/heading.tsx'
import { ErrorView, Region, useLoad } from '../../components/load.tsx'
import { Dialog } from '../../components/dialog.tsx'
import { Time } from '../../components/time.tsx'
import { announce } from '../../components/status.ts'
import { config, hasUpstream, isAdmin } from '../../session.ts'
import { arrange, DEFAULT_ARRANGEMENT, toLayout, type Arrangement, type WidgetId } from './arrangement.ts'
import { useLiveLoad } from './live.ts'
import { same } from '../../components/json-patch.ts'
import { useUnsavedChanges } from '../../components/unsaved.ts'
import { takeDraft } from '../../drafts.ts'
import { revealHidden } from '../../reveal.ts'
import { actionWords, knownIdentifier, outcomeOf } from '../../audit-words.ts'
import { unavailableWhile } from '../../components/one-at-a-time.ts'

const SERVICE_NAMES: Record<string, string> = {
  idp: 'Kratos public API',
  'idp-admin': 'Kratos admin API',
  'iam-idp': 'Admins’ Kratos public API',
  'iam-idp-admin': 'Admins’ Kratos admin API',
  oauth: 'Hydra public API',
  'oauth-admin': 'Hydra admin API',
}

interface WidgetProps {
  /** Called once the widget has its first answer (its data or a failure), and with it about the height it keeps. */
  onSettled: () => void
  /** Every widget above it has settled, so where it stands on the page is known. Only the map waits for it (and nothing waits for the map). */
  placed: boolean
}

const WIDGETS: Record<WidgetId, { label: string; admin: boolean; render: (props: WidgetProps) => JSX.Element }> = {
  services: { label: 'Services', admin: false, render: (props) => <Services key="services" {...props} /> },
  map: { label: 'Session map', admin: false, render: (props) => <SessionMap key="map" {...props} /> },
  audit: { label: 'Latest audit events', admin: true, render: (props) => <LatestAudit key="audit" {...props} /> },
}

export function Overview() {
  const [stored, retry, replace] = useLoad(() => api.layout(), [])
  // Back from the sign-in after the session ended with Customize open and changed: it opens again
  // with that arrangement, once the saved one has been read.
  const [kept, setKept] = useState(() => keptArrangement(takeDraft('layout')))
  const [customizing, setCustomizing] = useState(false)
  const [settled, setSettled] = useState<ReadonlySet<WidgetId>>(new Set())
  const settle = useCallback((id: WidgetId) => setSettled((before) => (before.has(id) ? before : new Set([...before, id]))), [])
  useEffect(() => {
    if (kept !== null && stored.state !== 'loading') setCustomizing(true)
  }, [stored.state])
  // The session map reads the managed Kratos: an admin's configuration says whether there is one (viewers are not told).
  const available = (id: WidgetId) => (!WIDGETS[id].admin || isAdmin()) && (id !== 'map' || config.value === null || hasUpstream('kratos'))
  // A layout that cannot be read is no reason to hide the overview: the default arrangement stands in.
  const arrangement: Arrangement = stored.state === 'ready' ? arrange(stored.data.layout) : DEFAULT_ARRANGEMENT
  const shown = arrangement.filter((entry) => !entry.hidden && available(entry.id))
  return (
    <>
      <Heading>Overview</Heading>
      <div class="toolbar">
        <span />
        <button type="button" onClick={() => setCustomizing(true)} disabled={stored.state === 'loading'}>
          Customize
        </button>
      </div>
      {stored.state === 'failed' && <ErrorView failure={{ ...stored.failure, message: `Your saved arrangement cannot be read; the default is shown. ${stored.failure.message}` }} retry={retry} />}
      <div class="sections" aria-busy={stored.state === 'loading' ? 'true' : 'false'}>
        {stored.state !== 'loading' &&
          shown.map((entry, index) => WIDGETS[entry.id].render({ onSettled: () => settle(entry.id), placed: shown.slice(0, index).every((above) => settled.has(above.id)) }))}
        {stored.state !== 'loading' && shown.length === 0 && <p class="empty">Every widget is hidden. Use Customize to show them again.</p>}
      </div>
      <CustomizeDialog
        open={customizing}
        kept={kept}
        onKeptUsed={() => setKept(null)}
        arrangement={arrangement.filter((entry) => available(entry.id))}
        previous={stored.state === 'ready' ? stored.data.layout : null}
        onClose={() => setCustomizing(false)}
        onSaved={(layout) => replace({ layout })}
      />
    </>
  )
}

/** A kept arrangement: the widgets of the overview, each once. */
const keptArrangement = (data: unknown): Arrangement | null =>
  Array.isArray(data) &&
  data.every((entry) => typeof entry === 'object' && entry !== null && (entry as { id?: unknown }).id as string in WIDGETS && typeof (entry as { hidden?: unknown }).hidden === 'boolean') &&
  new Set(data.map((entry) => (entry as { id: string }).id)).size === data.length
    ? (data as Arrangement)
    : null

function CustomizeDialog(props: {
  open: boolean
  /** The arrangement as it was when the session ended with the dialog open (drafts.ts). */
  kept: Arrangement | null
  onKeptUsed: () => void
  arrangement: Arrangement
  previous: Layout | null
  onClose: () => void
  onSaved: (layout: Layout) => void
}) {
  const [draft, setDraft] = useState<Arrangement>(props.arrangement)
  const [failure, setFailure] = useState<ApiFailure | null>(null)
  const [busy, setBusy] = useState(false)
  // What a move or a reset did, said in the dialog's own status line (see below).
  const [note, setNote] = useState('')
  const say = (text: string) => {
    // Emptied first, so that the same sentence twice is said twice.
    setNote('')
    queueMicrotask(() => setNote(text))
  }
  const moved = useRef<string | null>(null)
  const unsaved = useUnsavedChanges(props.open && !same(draft, props.arrangement) ? 'the overview arrangement' : null, { form: 'layout', data: draft })
  // As the dialog opens, in the same render (see Dialog): a Space pressed at once is not undone.
  useLayoutEffect(() => {
    if (props.open) {
      // Only the widgets that can be shown now, in the kept order.
      const kept = props.kept?.filter((entry) => props.arrangement.some((shown) => shown.id === entry.id))
      setDraft(kept && kept.length === props.arrangement.length ? kept : props.arrangement)
      if (props.kept) props.onKeptUsed()
      setFailure(null)
      setNote('')
    }
  }, [props.open])
  // Keep the focus on the button that was pressed, now in the widget's new row, in the render that
  // moves it: a frame later a person may have pressed it again. At an end it stays there too (it
  // says it is unavailable, and a press does nothing), so pressing on never turns the widget back.
  useLayoutEffect(() => {
    const key = moved.current
    if (!key) return
    moved.current = null
    document.querySelector<HTMLButtonElement>(`[data-move="${key}"]`)?.focus()
  }, [draft])
  const move = (index: number, by: -1 | 1, direction: 'up' | 'down') => {
    const to = index + by
    if (to < 0 || to >= draft.length) return
    const next = [...draft]
    const [entry] = next.splice(index, 1)
    next.splice(to, 0, entry!)
    moved.current = `${entry!.id}:${direction}`
    setDraft(next)
    say(`${WIDGETS[entry!.id].label} moved to position ${to + 1} of ${next.length}.`)
  }
  const reset = () => {
    const defaults = DEFAULT_ARRANGEMENT.filter((d) => props.arrangement.some((a) => a.id === d.id))
    setDraft(defaults)
    say(`The default is back here: ${defaults.map((entry) => WIDGETS[entry.id].label).join(', ')}, all shown. Save to keep it.`)
  }
  const save = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    const layout = toLayout(draft, props.previous)
    const result = await unsaved.send(() => api.saveLayout(layout))
    setBusy(false)
    if (!result.ok) return setFailure(result.failure)
    props.onSaved(result.data.layout)
    props.onClose()
    announce('Overview arrangement saved.')
  }
  return (
    <Dialog open={props.open} title="Customize the overview" onClose={props.onClose} unsaved={unsaved.pending}>
      <form class="form" onSubmit={save}>
        <p class="muted">Choose what the overview shows, and in which order. Saved for your account.</p>
        <ol class="widget-order">
          {draft.map((entry, index) => {
            const label = WIDGETS[entry.id].label
            return (
              <li key={entry.id}>
                <span class="field checkbox">
                  <input
                    id={`widget-${entry.id}`}
                    type="checkbox"
                    checked={!entry.hidden}
                    onChange={(e) => setDraft(draft.map((d) => (d.id === entry.id ? { ...d, hidden: !e.currentTarget.checked } : d)))}
                  />
                  <label for={`widget-${entry.id}`}>Show {label}</label>
                </span>
                <span class="moves">
                  <button type="button" data-move={`${entry.id}:up`} aria-label={`Move ${label} up`} aria-disabled={index === 0 ? 'true' : undefined} onClick={() => move(index, -1, 'up')}>
                    Up
                  </button>
                  <button
                    type="button"
                    data-move={`${entry.id}:down`}
                    aria-label={`Move ${label} down`}
                    aria-disabled={index === draft.length - 1 ? 'true' : undefined}
                    onClick={() => move(index, 1, 'down')}
                  >
                    Down
                  </button>
                </span>
              </li>
            )
          })}
        </ol>
        {/* The dialog's own status line, beside the page's one status region: a modal dialog makes
            everything behind it inert, that region too, so what is said there is not read out. */}
        <p role="status" class="visually-hidden">
          {note}
        </p>
        {failure && <ErrorView failure={failure} />}
        <div class="actions">
          <button type="submit" class="primary" {...unavailableWhile(busy)}>
            Save
          </button>
          <button type="button" onClick={reset}>
            Reset to default
          </button>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** How often the service cards are checked again while the overview is shown. */
const SERVICES_EVERY_MS = 30_000
const serviceName = (service: ServiceHealth) => SERVICE_NAMES[service.name] ?? service.name

/** Only a service that went down or came back is announced, not every check. */
function announceServiceChanges(before: { services: ServiceHealth[] }, after: { services: ServiceHealth[] }): void {
  const changed = after.services.filter((service) => {
    const earlier = before.services.find((candidate) => candidate.name === service.name)
    return service.configured && earlier?.configured === true && earlier.healthy !== service.healthy
  })
  if (changed.length > 0) announce(changed.map((service) => `${serviceName(service)} is ${service.healthy ? 'up' : 'down'}.`).join(' '))
}

/** Tells the overview once a widget has its first answer. */
function useSettled(state: 'loading' | 'failed' | 'ready', onSettled: () => void): void {
  useEffect(() => {
    if (state !== 'loading') onSettled()
  }, [state !== 'loading'])
}

function Services({ onSettled }: WidgetProps) {
  const [loaded, retry] = useLiveLoad(api.servicesHealth, SERVICES_EVERY_MS, announceServiceChanges)
  useSettled(loaded.state, onSettled)
  const checkedAt = loaded.state === 'ready' ? loaded.checkedAt : null
  const stale = loaded.state === 'ready' ? loaded.stale : null
  return (
    <section aria-labelledby="services-h" class="card">
      <h2 id="services-h">Services</h2>
      {stale && (
        <ErrorView
          failure={{ ...stale, message: `The services could not be checked again; the last check is shown. ${stale.message}` }}
          retry={retry}
          busy={loaded.state === 'ready' && loaded.refreshing === true}
        />
      )}
      <Region loaded={loaded} retry={retry} label="services">
        {({ services }) => {
          const configured = services.filter((s) => s.configured)
          if (configured.length === 0) return <p class="empty">No upstream service is configured.</p>
          return (
            <>
              <ul class="service-cards">
                {configured.map((service) => (
                  <li key={service.name} class="service-card">
                    <h3>{serviceName(service)}</h3>
                    <p class="mono muted">{service.name}</p>
                    <p>
                      {/* The last check's answer, said as such when no newer one could be had (the service may have gone down since). */}
                      <span class={stale ? 'state state-warn' : service.healthy ? 'state state-active' : 'state state-inactive'}>
                        {`${service.healthy ? 'Up' : 'Down'}${stale ? ' at the last check' : ''}`}
                      </span>
                    </p>
                    <dl class="facts">
                      <dt>Version</dt>
                      <dd>{service.version ?? 'unknown'}</dd>
                      <dt>Response time</dt>
                      <dd>{service.response_ms === null || service.response_ms === undefined ? '—' : `${service.response_ms} ms`}</dd>
                    </dl>
                  </li>
                ))}
              </ul>
              <p class="muted checked">
                Checked <Time value={checkedAt} />, and again every {SERVICES_EVERY_MS / 1000} seconds while this page is shown.
              </p>
            </>
          )
        }}
      </Region>
    </section>
  )
}

/**
 * The map's data and outline are asked for only once the map is shown: scrolled into view after the
 * widgets above it have settled (while they still say "Loading…" they are short, and the map would
 * seem to be on screen although their answers push it below the fold), or when its button is
 * pressed (a keyboard or a screen reader reaches the button without scrolling; a Tab that only
 * scrolls it into view loads nothing, as focus alone changes nothing).
 */
function SessionMap({ placed }: WidgetProps) {
  const ref = useRef<HTMLElement>(null)
  const heading = useRef<HTMLHeadingElement>(null)
  const loadButton = useRef<HTMLButtonElement>(null)
  const [shown, setShown] = useState(false)
  // Its button had focus and gives way to the map: focus goes to the map's heading, so that the next
  // Tab goes on from here rather than from the top of the page.
  const focusHeading = useRef(false)
  const showNow = () => {
    focusHeading.current = true
    setShown(true)
  }
  useLayoutEffect(() => {
    if (!shown || !focusHeading.current) return
    focusHeading.current = false
    heading.current?.focus()
  }, [shown])
  useEffect(() => {
    const element = ref.current
    if (!element || shown || !placed) return
    const observer = new IntersectionObserver((entries) => {
      // Scrolled into view because its button took focus (a Tab): the button waits to be pressed,
      // rather than give way under the person's focus.
      if (document.activeElement === loadButton.current) return
      if (entries.some((entry) => entry.isIntersecting)) {
        setShown(true)
        observer.disconnect()
      }
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [shown, placed])
  return (
    <section aria-labelledby="map-h" class="card" ref={ref}>
      <h2 id="map-h" ref={heading} tabIndex={-1}>
        Session map
      </h2>
      {shown ? (
        <MapContent />
      ) : (
        <p class="muted">
          The map loads when it is shown.{' '}
          {/* Loaded when pressed, not when focused: a Tab that reaches it must not move focus on its own. */}
          <button type="button" ref={loadButton} onClick={showNow}>
            Load the session map
          </button>
        </p>
      )}
    </section>
  )
}

function MapContent() {
  const [loaded, retry] = useLoad(() => api.sessionLocations(), [])
  return (
    <Region loaded={loaded} retry={retry} label="session locations">
      {({ points, truncated }) =>
        points.length === 0 ? (
          <p class="empty">There are no active sessions.</p>
        ) : (
          <>
            <WorldMap points={points} />
            <table class="data compact">
              <caption>Active sessions per location{truncated ? ' (the newest sessions only)' : ''}</caption>
              <thead>
                <tr>
                  <th scope="col">Location</th>
                  <th scope="col">Sessions</th>
                </tr>
              </thead>
              <tbody>
                {points.map((point) => (
                  <tr key={`${point.lat},${point.lng}`}>
                    <td>{point.label}</td>
                    <td>{point.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )
      }
    </Region>
  )
}

/** An equirectangular world: a graticule and one circle per location, sized by its count. */
function WorldMap({ points }: { points: LocationPoint[] }) {
  // The outline is a separate asset, fetched only now that the map is shown.
  const [outline, setOutline] = useState<string | null>(null)
  useEffect(() => {
    let current = true
    import('./world-outline.ts').then((module) => current && setOutline(module.WORLD_OUTLINE)).catch(() => {})
    return () => {
      current = false
    }
  }, [])
  const max = Math.max(...points.map((p) => p.count))
  const x = (lng: number) => lng + 180
  const y = (lat: number) => 90 - lat
  const lines = []
  for (let lng = -150; lng <= 150; lng += 30) lines.push(<line key={`v${lng}`} x1={x(lng)} y1={0} x2={x(lng)} y2={180} />)
  for (let lat = -60; lat <= 60; lat += 30) lines.push(<line key={`h${lat}`} x1={0} y1={y(lat)} x2={360} y2={y(lat)} />)
  return (
    <svg class="world-map" viewBox="0 0 360 180" role="img" aria-label={`Map of active sessions in ${points.length} locations; the table below lists them.`}>
      <rect class="ocean" x="0" y="0" width="360" height="180" />
      <g class="graticule">{lines}</g>
      {outline && <path class="land" d={outline} />}
      {points.map((point) => (
        <circle key={`${point.lat},${point.lng}`} class="spot" cx={x(point.lng)} cy={y(point.lat)} r={2 + 6 * Math.sqrt(point.count / max)}>
          <title>{`${point.label}: ${point.count}`}</title>
        </circle>
      ))}
    </svg>
  )
}

function LatestAudit({ onSettled }: WidgetProps) {
  const [loaded, retry] = useLoad(() => api.audit(10), [])
  useSettled(loaded.state, onSettled)
  return (
    <section aria-labelledby="audit-h" class="card">
      <h2 id="audit-h">Latest audit events</h2>
      <Region loaded={loaded} retry={retry} label="audit events">
        {({ events }) =>
          events.length === 0 ? (
            <p class="empty">Nothing has been audited yet.</p>
          ) : (
            <ol class="plain audit-list">
              {events.map((event) => {
                const outcome = outcomeOf(event)
                const known = event.actor ? knownIdentifier(event.actor) : null
                return (
                  <li key={event.id}>
                    <Time value={event.at} /> <strong>{actionWords(event.action)}</strong>
                    {/* Not done (a sign-in refused, a write that failed): said, not left to read as done. */}
                    {!outcome.done && (
                      <>
                        {' '}
                        <span class="state state-warn">{outcome.said}</span>
                      </>
                    )}
                    {event.actor && <span class={known ? 'muted' : 'mono muted'}> by {revealHidden(known ?? event.actor)}</span>}
                    {event.target && <span class="mono muted"> on {revealHidden(event.target)}</span>}
                  </li>
                )
              })}
            </ol>
          )
        }
      </Region>
      {/* Whatever the widget could read: the Audit log page has its own way to page, filter and retry. */}
      <p>
        <a href="/dashboard/audit">Audit log</a>
      </p>
    </section>
  )
}
