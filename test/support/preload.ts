import { afterEach } from 'bun:test'
import { drainFindings } from './leaks.ts'

// Every error body produced during a test passes the shared leak check, or that test fails.
afterEach(async () => {
  const findings = await drainFindings()
  if (findings.length > 0) throw new Error(`error bodies failed the leak check:\n${findings.join('\n')}`)
})
