// The proxy's refusal when the request may have reached the upstream and its answer did not come
// back whole (the connection reset after the request went out, an answer cut short) or could not
// be read: a change it asked for may have been made. The UI reads these words to say so and to
// offer no blind retry (ui/api.ts). Without imports, so that the UI bundles the same text.

const MAY_HAVE_BEEN_MADE = 'The request reached it: a change it asked for may have been made. Check before trying again.'

/** 502 `bad_gateway`: the answer was lost on the way. */
export const ANSWER_LOST = { message: "The upstream service's answer did not come through.", hint: MAY_HAVE_BEEN_MADE } as const

/** 500 `proxy_error`: an answer came that could not be read (its framing, its status). */
export const ANSWER_UNREADABLE = { message: "The upstream service's answer could not be read.", hint: MAY_HAVE_BEEN_MADE } as const

/** The messages that say the request reached the upstream and what it answered is not known. */
export const REACHED_UNANSWERED: readonly string[] = [ANSWER_LOST.message, ANSWER_UNREADABLE.message]
