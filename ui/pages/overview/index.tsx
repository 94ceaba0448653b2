// Overview (both roles): the upstream services, the session map, and for admins the latest audit events.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, type LocationPoint } from '../../api.ts'
import { Heading } from '../../components/heading.tsx'
import { Region, useLoad } from '../../components/load.tsx'
import { Time } from '../../components/time.tsx'
import { isAdmin } from '../../session.ts'

const SERVICE_NAMES: Record<string, string> = {
  idp: 'Kratos public API',
  'idp-admin': 'Kratos admin API',
  'iam-idp': 'Admins’ Kratos public API',
  'iam-idp-admin': 'Admins’ Kratos admin API',
  oauth: 'Hydra public API',
  'oauth-admin': 'Hydra admin API',
}

export function Overview() {
  return (
    <>
      <Heading>Overview</Heading>
      <div class="sections">
        <Services />
        <SessionMap />
        {isAdmin() && <LatestAudit />}
      </div>
    </>
  )
}

function Services() {
  const [loaded, retry] = useLoad(() => api.servicesHealth(), [])
  return (
    <section aria-labelledby="services-h" class="card">
      <h2 id="services-h">Services</h2>
      <Region loaded={loaded} retry={retry} label="services">
        {({ services }) => {
          const configured = services.filter((s) => s.configured)
          if (configured.length === 0) return <p class="empty">No upstream service is configured.</p>
          return (
            <ul class="service-cards">
              {configured.map((service) => (
                <li key={service.name} class="service-card">
                  <h3>{SERVICE_NAMES[service.name] ?? service.name}</h3>
                  <p class="mono muted">{service.name}</p>
                  <p>
                    <span class={service.healthy ? 'state state-active' : 'state state-inactive'}>{service.healthy ? 'Up' : 'Down'}</span>
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
          )
        }}
      </Region>
    </section>
  )
}

/** The map's data is asked for only once the map scrolls into view. */
function SessionMap() {
  const ref = useRef<HTMLElement>(null)
  const [shown, setShown] = useState(false)
  useEffect(() => {
    const element = ref.current
    if (!element || shown) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        setShown(true)
        observer.disconnect()
      }
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [shown])
  return (
    <section aria-labelledby="map-h" class="card" ref={ref}>
      <h2 id="map-h">Active sessions by location</h2>
      {shown ? <MapContent /> : <p class="muted">The map loads when it is shown.</p>}
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

function LatestAudit() {
  const [loaded, retry] = useLoad(() => api.audit(10), [])
  return (
    <section aria-labelledby="audit-h" class="card">
      <h2 id="audit-h">Latest audit events</h2>
      <Region loaded={loaded} retry={retry} label="audit events">
        {({ events }) =>
          events.length === 0 ? (
            <p class="empty">Nothing has been audited yet.</p>
          ) : (
            <>
            <ol class="plain audit-list">
              {events.map((event) => (
                <li key={event.id}>
                  <Time value={event.at} /> <strong>{event.action.replace(/_/g, ' ')}</strong>
                  {event.actor && <span class="mono muted"> by {event.actor}</span>}
                  {event.target && <span class="mono muted"> on {event.target}</span>}
                </li>
              ))}
            </ol>
            <p>
              <a href="/dashboard/audit">Audit log</a>
            </p>
            </>
          )
        }
      </Region>
    </section>
  )
}
