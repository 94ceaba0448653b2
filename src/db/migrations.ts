// Versioned schema. Append new versions; never edit one that has shipped.

export interface Migration {
  version: number
  sql: string
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        encrypted INTEGER NOT NULL CHECK (encrypted IN (0, 1)),
        category TEXT,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE revoked_sessions (
        sid TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE identity_revocations (
        identity_id TEXT PRIMARY KEY,
        revoked_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        action TEXT NOT NULL,
        actor TEXT,
        target TEXT,
        detail TEXT
      ) STRICT;
      CREATE INDEX audit_events_action ON audit_events (action, id);
      CREATE TABLE dashboard_layouts (
        identity_id TEXT PRIMARY KEY,
        layout TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    // Millisecond revocation time: a sign-in in the same second as a revocation must survive it.
    sql: `ALTER TABLE identity_revocations ADD COLUMN revoked_at_ms INTEGER;`,
  },
  {
    version: 3,
    // The request an event came in (its X-Request-Id and log line); null for the CLI and older events.
    sql: `
      ALTER TABLE audit_events ADD COLUMN request_id TEXT;
      CREATE INDEX audit_events_request_id ON audit_events (request_id);
    `,
  },
  {
    version: 4,
    // The fingerprint of the session signing key the last start used: replicas must share one.
    sql: `
      CREATE TABLE signing_key (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        fingerprint TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 5,
    // The Audit log filtered by who, and by who and what: index lookups, not a scan of the whole trail.
    sql: `
      CREATE INDEX audit_events_actor ON audit_events (actor, id);
      CREATE INDEX audit_events_actor_action ON audit_events (actor, action, id);
    `,
  },
]
