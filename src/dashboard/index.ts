// The operator UI (spec ui.md "Serving"): every /dashboard path answers the app shell, and the
// bundled assets (built from ui/ into assets.generated.ts, so they live inside the executable)
// are served under /dashboard/assets/ with immutable caching. Elysia routes, not Bun's static
// routes, so every answer passes the gate, the request log and the security headers.

import { Elysia } from 'elysia'
import { errorResponse } from '../http/errors.ts'
import { ASSETS, ENTRY } from './assets.generated.ts'

const ASSET_PREFIX = '/dashboard/assets/'

// Nothing inline, nothing from another origin.
export const SHELL_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/**
 * A page of ours up to its body: the UI's stylesheet and viewport, and `extra` in the head. The
 * app's shell, and the pages served outside the app (a sign-in that failed); `title` is HTML.
 */
export function documentStart(title: string, extra = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="${ASSET_PREFIX}${ENTRY.style}">
${extra}</head>
`
}

const SHELL = `${documentStart(
  'Dashboard · admin-dashboard',
  `<script type="module" src="${ASSET_PREFIX}${ENTRY.script}"></script>\n${ENTRY.preload.map((name) => `<link rel="modulepreload" href="${ASSET_PREFIX}${name}">\n`).join('')}`,
)}<body>
<div id="app"><noscript>The dashboard needs JavaScript.</noscript></div>
</body>
</html>
`

const assetBodies = new Map(Object.entries(ASSETS).map(([name, asset]) => [name, { type: asset.type, body: new TextEncoder().encode(asset.body) }]))

// A page of another site that opened the dashboard (window.open from a link in a mail, so that the
// address looks right) keeps no hold on its window: it could otherwise send the dashboard's tab to a
// look-alike sign-in later (tabnabbing). Same-origin windows (none today) would keep theirs.
export const SHELL_OPENER_POLICY = 'same-origin'

function shell(set: { headers: Record<string, string | number> }): Response {
  set.headers['cache-control'] = 'no-store'
  return new Response(SHELL, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': SHELL_CONTENT_SECURITY_POLICY,
      'cross-origin-opener-policy': SHELL_OPENER_POLICY,
      'cache-control': 'no-store',
    },
  })
}

export function dashboardRoutes() {
  return new Elysia({ name: 'dashboard' })
    .get('/dashboard/assets/*', ({ request, set }) => {
      const name = new URL(request.url, 'http://localhost').pathname.slice(ASSET_PREFIX.length)
      const asset = assetBodies.get(name)
      if (!asset) return errorResponse('not_found', { message: 'No such asset.' })
      set.headers['cache-control'] = 'public, max-age=31536000, immutable'
      return new Response(asset.body, {
        headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' },
      })
    })
    .get('/dashboard', ({ set }) => shell(set))
    .get('/dashboard/*', ({ set }) => shell(set))
    .get('/', () => new Response(null, { status: 302, headers: { location: '/dashboard' } }))
}
