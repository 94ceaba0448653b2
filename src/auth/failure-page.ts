// A sign-in that fails in the browser (the provider said no, no role here, the database away) ends
// on a page of its own, not on the error envelope's JSON: the person sees what happened in words
// and a way to sign in again. Same status and code as the envelope an API client gets (decisions
// §4); only a browser's navigation, which asks for HTML, gets the page. Its text is the envelope's
// fixed text: nothing from the request or the provider.

import { documentStart, SHELL_CONTENT_SECURITY_POLICY, SHELL_OPENER_POLICY } from '../dashboard/index.ts'
import { codeToStatus, envelope, markErrorCode, type ErrorCode } from '../http/errors.ts'

/** Whether the request is a browser opening the address (a click, a redirect), not a script asking. */
export function wantsPage(request: Request): boolean {
  const mode = request.headers.get('sec-fetch-mode')
  if (mode !== null) return mode === 'navigate'
  return (request.headers.get('accept') ?? '').includes('text/html')
}

export interface FailurePage {
  code: ErrorCode
  /** The h1 and the title: "Sign-in failed", "Sign-in unavailable". */
  heading: string
  message?: string
  hint?: string
  /** Where the link leads: the sign-in, with the place the person was going. */
  signIn: string
  /** The link's words: "Sign in again" after a sign-in that failed, "Try again" when it could not start. */
  again: 'Sign in again' | 'Try again'
  headers?: [string, string][]
}

export function failurePage(page: FailurePage): Response {
  const body = envelope(page.code, { message: page.message, hint: page.hint })
  // "Start again at /api/auth/login" is the link itself here.
  const hint = page.code === 'login_failed' ? undefined : body.hint
  const html = `${documentStart(`${Bun.escapeHTML(page.heading)} · admin-dashboard`)}<body>
<main id="main" class="page page-alone">
<h1>${Bun.escapeHTML(page.heading)}</h1>
<p>${Bun.escapeHTML(body.message)}</p>
${hint === undefined ? '' : `<p>${Bun.escapeHTML(hint)}</p>\n`}<p><a href="${Bun.escapeHTML(page.signIn)}">${page.again}</a></p>
</main>
</body>
</html>
`
  const headers = new Headers(page.headers)
  headers.set('content-type', 'text/html; charset=utf-8')
  headers.set('content-security-policy', SHELL_CONTENT_SECURITY_POLICY)
  headers.set('cache-control', 'no-store')
  headers.set('cross-origin-opener-policy', SHELL_OPENER_POLICY)
  return markErrorCode(new Response(html, { status: codeToStatus(page.code), headers }), page.code)
}
