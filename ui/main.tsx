import { render } from 'preact'
import './styles/theme.css'
import './styles/layout.css'
import './styles/components.css'
import './styles/data-table.css'
import './theme.ts'
import { App } from './app.tsx'
import { keepFocus } from './components/focus.ts'
import { findRoute } from './routes.tsx'

keepFocus()
// A link straight to a page: its code is fetched beside the session check, not after it.
findRoute(window.location.pathname)
  ?.route.preload?.()
  .catch(() => {})
render(<App />, document.getElementById('app')!)
