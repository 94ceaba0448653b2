/** Time as the service sees it; tests move it instead of waiting. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
