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
  {
    version: 6,
    // What an event is about, for the Audit log's filter by an identity, a client or a setting (an
    // index lookup): who signed in or out; the identity whose dashboard sessions ended; the setting;
    // for a proxied write, the identity or client it created, whose tokens it revoked or (a recovery
    // link or code) whose body named it, else the one its path is under (/admin/identities/<id>…,
    // /admin/clients/<id>…: recorded as the upstream reads it, decoded, with a Kratos id in its one
    // spelling; events recorded before this version kept the path as sent). Derived from the
    // columns every event has, so the events recorded before have one too. PostgreSQL's version 6 is the same rule (test/audit-about.test.ts holds
    // both to it).
    sql: `
      ALTER TABLE audit_events ADD COLUMN about TEXT GENERATED ALWAYS AS (
        CASE
          WHEN action IN ('login', 'logout') THEN actor
          WHEN action IN ('sessions_revoke', 'settings_write', 'settings_delete', 'settings_decrypt_read') THEN target
          WHEN action = 'proxy_write' THEN coalesce(
            CASE WHEN json_valid(detail) THEN coalesce(json_extract(detail, '$.created'), json_extract(detail, '$.client_id'), json_extract(detail, '$.identity_id')) END,
            CASE
              WHEN substr(target, 1, 18) = '/admin/identities/' AND length(target) > 18
                THEN substr(target, 19, CASE WHEN instr(substr(target, 19), '/') > 0 THEN instr(substr(target, 19), '/') - 1 ELSE length(target) END)
              WHEN substr(target, 1, 15) = '/admin/clients/' AND length(target) > 15
                THEN substr(target, 16, CASE WHEN instr(substr(target, 16), '/') > 0 THEN instr(substr(target, 16), '/') - 1 ELSE length(target) END)
            END)
        END
      ) VIRTUAL;
      CREATE INDEX audit_events_about ON audit_events (about, id);
    `,
  },
]
