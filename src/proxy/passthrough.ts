// Responses relayed from an upstream as they came (status and body are the upstream's, not ours).
// The envelope rules apply to what the service itself says, so these are told apart.

const relayed = new WeakSet<Response>()

export function markPassthrough(response: Response): Response {
  relayed.add(response)
  return response
}

export function isPassthrough(response: Response): boolean {
  return relayed.has(response)
}
