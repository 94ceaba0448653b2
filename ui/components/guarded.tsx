// A part of a page that may meet data it cannot show (an upstream's record nested deeper than the
// browser can walk, say): its failure stays in that part, said with a Retry, and the rest of the
// page (Deactivate, Delete) still works.
import { useErrorBoundary } from 'preact/hooks'
import type { ComponentChildren } from 'preact'

export function Guarded({ title, children }: { title: string; children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary()
  if (error) {
    return (
      <section class="card" aria-label={title}>
        <h2>{title}</h2>
        <div class="error-view" role="alert">
          <p>This part of the page cannot be shown: the record is not in a shape it can show.</p>
          <p class="actions">
            <button type="button" onClick={reset}>
              Retry
            </button>
          </p>
        </div>
      </section>
    )
  }
  return <>{children}</>
}
