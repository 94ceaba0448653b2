// Requests whose answer is relayed from an upstream as it came (status and body are the
// upstream's, not ours). The envelope rules apply to what the service itself says, so these are
// told apart; marked on the request, which stays the same object whatever wraps the response.

import { recorded, stateOf } from '../http/request-context.ts'

export function markPassthrough(request: Request): void {
  stateOf(request).passthrough = true
}

export function isPassthrough(request: Request): boolean {
  return recorded(request)?.passthrough ?? false
}
