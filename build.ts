// bun run build → dist/admin-dashboard: one self-contained executable for production.

import { $ } from 'bun'
import { buildUi } from './scripts/build-ui.ts'

// The UI first: its assets are embedded through src/dashboard/assets.generated.ts.
await buildUi()

const outfile = process.env.OUTFILE ?? 'dist/admin-dashboard'

await $`bun build src/main.ts --compile --bytecode --target=bun --outfile ${outfile} \
  --define process.env.NODE_ENV='"production"' \
  --no-compile-autoload-dotenv --no-compile-autoload-bunfig \
  --no-compile-autoload-tsconfig --no-compile-autoload-package-json`

console.log(`built ${outfile}`)
