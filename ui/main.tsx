import { render } from 'preact'
import './styles/theme.css'
import './styles/layout.css'
import './styles/components.css'
import './styles/data-table.css'
import './theme.ts'
import { App } from './app.tsx'
import { keepFocus } from './components/focus.ts'

keepFocus()
render(<App />, document.getElementById('app')!)
