// A storage dump with its audit pages read into one list, to compare two databases whole.
import type { Storage, StorageDump, StoredAuditEvent } from '../../src/db/storage.ts'

export async function wholeDump(storage: Pick<Storage, 'dump'>): Promise<Omit<StorageDump, 'audit'> & { audit: StoredAuditEvent[] }> {
  const dump = await storage.dump()
  const audit: StoredAuditEvent[] = []
  for await (const page of dump.audit) audit.push(...page)
  return { ...dump, audit }
}
