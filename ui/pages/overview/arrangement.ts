// The Overview's arrangement as stored in the identity's layout (`GET/PUT /api/dashboard/layout`):
// `{ "overview": { "order": ["map", "services", "audit"], "hidden": ["map"] } }`. Whatever else a
// layout holds is kept as it is; unknown widget ids are ignored and new widgets join at the end.

import type { Layout } from '../../api.ts'

export type WidgetId = 'services' | 'map' | 'audit'
export type Arrangement = { id: WidgetId; hidden: boolean }[]

const IDS: WidgetId[] = ['services', 'map', 'audit']
export const DEFAULT_ARRANGEMENT: Arrangement = IDS.map((id) => ({ id, hidden: false }))

const isWidget = (value: unknown): value is WidgetId => typeof value === 'string' && (IDS as string[]).includes(value)

export function arrange(layout: Layout | null): Arrangement {
  const overview = layout?.overview
  if (typeof overview !== 'object' || overview === null) return DEFAULT_ARRANGEMENT
  const { order, hidden } = overview as { order?: unknown; hidden?: unknown }
  const listed = Array.isArray(order) ? order.filter(isWidget) : []
  const ids = [...new Set([...listed, ...IDS])]
  const hiddenIds = new Set(Array.isArray(hidden) ? hidden.filter(isWidget) : [])
  return ids.map((id) => ({ id, hidden: hiddenIds.has(id) }))
}

/** The layout to store: the previous one with this arrangement as its `overview`. */
export function toLayout(arrangement: Arrangement, previous: Layout | null): Layout {
  // Widgets this operator cannot see (a viewer's audit widget) keep their place at the end.
  const order = [...arrangement.map((entry) => entry.id), ...IDS.filter((id) => !arrangement.some((entry) => entry.id === id))]
  return { ...(previous ?? {}), overview: { order, hidden: arrangement.filter((entry) => entry.hidden).map((entry) => entry.id) } }
}
