// The proxy's 502 when the request may have reached the upstream and its answer did not come
// back whole (the connection reset after the request went out, the answer cut short): a change it
// asked for may have been made. The UI reads these words to say so and to offer no blind retry
// (ui/api.ts). Without imports, so that the UI bundles the same text.

export const ANSWER_LOST = {
  message: "The upstream service's answer did not come through.",
  hint: 'The request reached it: a change it asked for may have been made. Check before trying again.',
} as const
