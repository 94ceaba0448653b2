// A page whose code is its own chunk, fetched when it is first shown or preloaded: the first load
// of /dashboard carries the shell and the Overview only (ui.md's first-load budget), and the pages
// an operator may open are fetched while the browser is idle after it (see preloadPages in app.tsx).
import type { ComponentType } from 'preact'
import { signal } from '@preact/signals'
import { useEffect, useRef, useState } from 'preact/hooks'
import { Heading, focusHeadingAfterNavigation, headingHasFocus } from './heading.tsx'
import { location } from '../router.ts'

type PageProps = { params: Record<string, string> }

/**
 * How often the browser has come back online. Counted here, from the start, rather than heard by
 * each failed page: an `online` that came between a failure and a listener would be lost.
 */
const backOnline = signal(0)
window.addEventListener('online', () => backOnline.value++)
type Page = ComponentType<PageProps>

export interface LazyPage {
  title: string
  component: Page
  /** Fetches the page's code (once; again after a failure); the promise settles when it is there. */
  preload: () => Promise<Page>
}

/** `load` imports the page's module: `() => import('./pages/x/index.tsx').then((m) => m.XPage)`. */
export function lazyPage(title: string, load: () => Promise<Page>): LazyPage {
  let loaded: Page | null = null
  let loading: Promise<Page> | null = null
  const preload = () =>
    (loading ??= load().then(
      (page) => (loaded = page),
      (error: unknown) => {
        // Asked again, it is fetched again (a network that came back).
        loading = null
        throw error
      },
    ))
  function Lazy(props: PageProps) {
    const [, setReady] = useState(false)
    // The fetch failed: the location, and how often the browser had come back online, when it was asked for.
    const [failure, setFailure] = useState<{ at: unknown; online: number } | null>(null)
    // This instance said "loading" (or that it failed) at least once: it must draw again when the code is there.
    const waited = useRef(false)
    // After a failure, the page is asked for again by any navigation to it (its link pressed once
    // more, another record of it), or by the browser coming back online.
    const again = failure !== null && (location.value !== failure.at || backOnline.value !== failure.online)
    useEffect(() => {
      if (loaded) {
        // The code arrived between the render that said it was loading and this effect.
        if (waited.current) setReady(true)
        return
      }
      if (failure !== null && !again) return
      let current = true
      setFailure(null)
      // As things stood when asked: coming back online after this, even before the failure is known, asks again.
      const asked = { at: location.peek(), online: backOnline.peek() }
      preload().then(
        () => {
          if (!current) return
          // The loading heading had focus (a navigation gave it): the page's own takes it when drawn.
          // Focus the person moved elsewhere meanwhile stays where they put it.
          if (headingHasFocus()) focusHeadingAfterNavigation()
          setReady(true)
        },
        () => current && setFailure(asked),
      )
      return () => {
        current = false
      }
    }, [JSON.stringify(props.params), again, failure === null])
    const Shown = loaded
    if (Shown) return <Shown {...props} />
    waited.current = true
    if (failure !== null && !again) return <NotLoaded title={title} />
    // The page's name while its code is on its way (ui.md: each page has one h1 naming it).
    return (
      <>
        <Heading>{title}</Heading>
        <p class="muted" aria-busy="true">
          Loading the page…
        </p>
      </>
    )
  }
  return { title, component: Lazy, preload }
}

/**
 * The page's code did not arrive: the network, or the dashboard was updated since this tab opened
 * (a new executable serves other chunk names). Reloading brings the shell that names the new ones.
 */
function NotLoaded({ title }: { title: string }) {
  return (
    <>
      <Heading>{title}</Heading>
      <div class="error-view" role="alert">
        <p>This page could not be loaded. The dashboard may have been updated since this tab was opened, or the network is down.</p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    </>
  )
}
