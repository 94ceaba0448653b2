// Waiting for something another process or connection does "within N ms".

/** How long until `check` holds, polling for at most `ms`; null when it never did. */
export async function within(ms: number, check: () => boolean | Promise<boolean>, everyMs = 20): Promise<number | null> {
  const started = performance.now()
  for (;;) {
    if (await check()) return performance.now() - started
    if (performance.now() - started > ms) return null
    await Bun.sleep(everyMs)
  }
}
