// Requests whose answer is relayed from an upstream as it came (status and body are the
// upstream's, not ours). The envelope rules apply to what the service itself says, so these are
// told apart; marked on the request, which stays the same object whatever wraps the response.

const relayed = new WeakSet<Request>()

export function markPassthrough(request: Request): void {
  relayed.add(request)
}

export function isPassthrough(request: Request): boolean {
  return relayed.has(request)
}
