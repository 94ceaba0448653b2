// bun run build → dist/admin-dashboard: one self-contained executable for production.

import { $ } from 'bun'

const outfile = process.env.OUTFILE ?? 'dist/admin-dashboard'

await $`bun build src/main.ts --compile --bytecode --target=bun --outfile ${outfile} \
  --define process.env.NODE_ENV='"production"' \
  --no-compile-autoload-dotenv --no-compile-autoload-bunfig \
  --no-compile-autoload-tsconfig --no-compile-autoload-package-json`

console.log(`built ${outfile}`)
