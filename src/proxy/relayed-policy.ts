// The Content-Security-Policy every answer relayed from an upstream carries (headers.ts), and by
// which the UI tells Kratos's or Hydra's own answer from the service's (ui/api.ts): a 401 or 403 of
// theirs is about the service's API key, never the dashboard session. Without imports, so that the
// UI bundles the same text.

/** HTML from an upstream runs nothing, loads nothing and is never framed. */
export const RELAYED_ANSWER_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox"
