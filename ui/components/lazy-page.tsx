// A page whose code is its own chunk, fetched when it is first shown or preloaded: the first load
// of /dashboard carries the shell and the Overview only (ui.md's first-load budget), and the pages
// an operator may open are fetched while the browser is idle after it (see preloadPages in app.tsx).
import type { ComponentType } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { Heading, keepFocusWhereItIs } from './heading.tsx'

type PageProps = { params: Record<string, string> }
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
    const [failed, setFailed] = useState(false)
    // This instance said "loading" (or that it failed) at least once: it must draw again when the code is there.
    const waited = useRef(false)
    // Another record of the same page (an identity after another) asks again after a failure.
    const params = JSON.stringify(props.params)
    useEffect(() => {
      if (loaded) {
        // The code arrived between the render that said it was loading and this effect.
        if (waited.current) setReady(true)
        return
      }
      let current = true
      setFailed(false)
      // Where focus was as the page was asked for: if the person moves it before the page is
      // drawn (Tab past the link), the page's heading does not take it back (heading.tsx).
      const focusAt = document.activeElement
      preload().then(
        () => {
          if (!current) return
          const now = document.activeElement
          if (now !== focusAt && now !== null && now !== document.body) keepFocusWhereItIs()
          setReady(true)
        },
        () => current && setFailed(true),
      )
      return () => {
        current = false
      }
    }, [params])
    const Shown = loaded
    if (Shown) return <Shown {...props} />
    waited.current = true
    if (failed) return <NotLoaded title={title} />
    // No heading yet: the page's own takes focus after a navigation when it is drawn (heading.tsx).
    return (
      <p class="muted" aria-busy="true">
        Loading the page…
      </p>
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
