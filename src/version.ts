import pkg from '../package.json' with { type: 'json' }

/** The commit the executable was built from (build.ts defines it; `.dirty` when the tree had changes), undefined when run from source. */
declare const ADMIN_DASHBOARD_COMMIT: string | undefined

/** The package's version: the API document's version. */
export const VERSION: string = pkg.version

/**
 * What this build is: the package's version, with the commit it was built from as SemVer build
 * metadata (`0.1.0+3fab039c1d2e`), so that two builds of one version can be told apart (after an
 * upgrade, between replicas). From source, or built without git, the version alone.
 */
export const BUILD: string = typeof ADMIN_DASHBOARD_COMMIT === 'string' && ADMIN_DASHBOARD_COMMIT !== '' ? `${pkg.version}+${ADMIN_DASHBOARD_COMMIT}` : pkg.version
