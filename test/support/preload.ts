import { afterAll, afterEach } from 'bun:test'
import { throwFindings } from './leaks.ts'
import { removeTemporaryDirs } from './temp.ts'
import { buildUi, uiBuildIsStale } from '../../scripts/build-ui.ts'

// The server embeds the bundled UI: build it when ui/ changed (or on a fresh clone) before any
// test imports the app.
if (uiBuildIsStale()) await buildUi()

// Every error body and log line produced during a test passes the shared leak check, or that test fails.
afterEach(throwFindings)

// The directories tests made for themselves (temp.ts) go once the whole run is over.
afterAll(removeTemporaryDirs)
