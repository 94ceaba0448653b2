// The proxy's refusal when a change may have reached the upstream and its answer did not come back
// whole (the connection reset after the request went out, an answer cut short: 502) or could not be
// read (500): what it asked for may have been made. Said in words for a person, and for the UI in a
// header it reads (the envelope's `message` is not a contract, admin-api.md "Errors"), so that it
// offers no blind retry. Without imports, so that the UI bundles the same names.

/** On such a refusal: `unknown`, the request reached the upstream and what it did is not known. */
export const UPSTREAM_OUTCOME_HEADER = 'x-upstream-outcome'
export const OUTCOME_UNKNOWN = 'unknown'

/** 502 `bad_gateway`: the answer was lost on the way. */
export const ANSWER_LOST = "The upstream service's answer did not come through."

/** 500 `proxy_error`: an answer came that could not be read (its framing, its status). */
export const ANSWER_UNREADABLE = "The upstream service's answer could not be read."
