// Light, dark or the system's choice, remembered in localStorage.
import { signal, effect } from '@preact/signals'

export type ThemeChoice = 'light' | 'dark' | 'system'
const KEY = 'admin-dashboard.theme'

function stored(): ThemeChoice {
  const value = localStorage.getItem(KEY)
  return value === 'light' || value === 'dark' ? value : 'system'
}

export const theme = signal<ThemeChoice>(stored())

effect(() => {
  const choice = theme.value
  if (choice === 'system') {
    delete document.documentElement.dataset.theme
    localStorage.removeItem(KEY)
  } else {
    document.documentElement.dataset.theme = choice
    localStorage.setItem(KEY, choice)
  }
})

// Chosen in another tab of this browser: followed here at once.
window.addEventListener('storage', (event) => {
  if (event.key === KEY || event.key === null) theme.value = stored()
})
