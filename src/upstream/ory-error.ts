// Kratos's and Hydra's own error bodies, told from a page or a JSON 404 of something in front of
// them (an ingress, an API gateway): the service (whether a 404 says an identity is gone) and the UI
// (whether a relayed 404 says a thing is not there) read them the same way. Without imports, so
// that the UI can bundle it. Shapes: ory-upstreams.md.

/** Kratos: `{"error":{"code":<the status>,"status":…,"message":…}}`. */
export function isKratosError(body: unknown, status: number): boolean {
  const error = (body as { error?: unknown } | null)?.error
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === status
}

/** Hydra's admin API: `{"error":"…","error_description":"…"}`. */
export function isHydraError(body: unknown): boolean {
  const fields = body as { error?: unknown; error_description?: unknown } | null
  return typeof fields?.error === 'string' && typeof fields.error_description === 'string'
}
