// Which PostgreSQL failures mean "the database cannot be reached now" (503 database_unavailable)
// rather than a defect (500): read from the errors Bun's client raises, as they come.
import { expect, test } from 'bun:test'
import { isUnavailable } from '../src/db/postgres-storage.ts'
import { StorageUnavailableError } from '../src/db/storage.ts'

const server = (errno: string) => Object.assign(new Error('server error'), { code: 'ERR_POSTGRES_SERVER_ERROR', errno })

test('a session the server ended for idling in a transaction (25P03) or for outliving transaction_timeout (25P04) is unavailable, as are connection, resource and shutdown classes', () => {
  for (const errno of ['25P03', '25P04', '08006', '53300', '57P01', '57014', '58000', '28P01', '3D000']) expect([errno, isUnavailable(server(errno))]).toEqual([errno, true])
})

test('what the query itself got wrong is not: a constraint, a syntax error, other class-25 states', () => {
  for (const errno of ['23505', '42601', '22P02', '25001', '25P02', '40001']) expect([errno, isUnavailable(server(errno))]).toEqual([errno, false])
})

test('a database that takes no writes, a deadlock, a lock not available: unavailable (nothing done, to be tried again)', () => {
  for (const errno of ['25006', '40P01', '55P03']) expect([errno, isUnavailable(server(errno))]).toEqual([errno, true])
})

test('the client losing its connection or socket is unavailable; an error without a code is not', () => {
  expect(isUnavailable(Object.assign(new Error('closed'), { code: 'ERR_POSTGRES_CONNECTION_CLOSED' }))).toBe(true)
  expect(isUnavailable(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(true)
  expect(isUnavailable(new StorageUnavailableError('timeout'))).toBe(true)
  expect(isUnavailable(new Error('bug'))).toBe(false)
  expect(isUnavailable(null)).toBe(false)
})
