// bun run build → dist/admin-dashboard: one self-contained executable for production.

import { $ } from 'bun'
import { buildUi } from './scripts/build-ui.ts'

// The UI first: its assets are embedded through src/dashboard/assets.generated.ts.
await buildUi()

const outfile = process.env.OUTFILE ?? 'dist/admin-dashboard'

// The commit built (src/version.ts BUILD), `.dirty` when the work tree has changes; none without git.
const head = await $`git rev-parse --short=12 HEAD`.quiet().nothrow()
const dirty = (await $`git status --porcelain --untracked-files=no`.quiet().nothrow()).stdout.toString().trim() !== ''
const commit = head.exitCode === 0 ? `${head.stdout.toString().trim()}${dirty ? '.dirty' : ''}` : ''

await $`bun build src/main.ts --compile --bytecode --target=bun --outfile ${outfile} \
  --define process.env.NODE_ENV='"production"' --define ADMIN_DASHBOARD_COMMIT=${JSON.stringify(commit)} \
  --no-compile-autoload-dotenv --no-compile-autoload-bunfig \
  --no-compile-autoload-tsconfig --no-compile-autoload-package-json`

console.log(`built ${outfile}${commit ? ` (${commit})` : ''}`)
