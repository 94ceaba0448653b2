// The `settings` table lives in the storage (src/db/): SQLite or PostgreSQL. Values arrive there as
// they are to be stored: ciphertext when `encrypted` is true.

export type { Setting, UpsertOutcome } from '../db/storage.ts'
