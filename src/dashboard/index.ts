// The page the login ends on (decisions §12), embedded in the executable. It is public at the
// HTTP level: it holds no data and asks GET /api/auth/session for everything it shows.

import { Elysia } from 'elysia'
import { createHash } from 'node:crypto'
import pageText from './page.html' with { type: 'text' }

// Imported as text (Bun's types describe HTML imports as bundles).
const page = pageText as unknown as string

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`
const inline = (tag: string) => [...page.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => sha256(m[1]!))

// Only the page's own inline script and style may run; nothing may frame it or post elsewhere.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${inline('script').join(' ')}`,
  `style-src ${inline('style').join(' ')}`,
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

export function dashboardRoutes() {
  return new Elysia({ name: 'dashboard' })
    .get(
      '/dashboard',
      () =>
        new Response(page, {
          headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CONTENT_SECURITY_POLICY },
        }),
    )
    .get('/', () => new Response(null, { status: 302, headers: { location: '/dashboard' } }))
}
