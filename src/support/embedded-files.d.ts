// Files embedded with `import path from '…' with { type: 'file' }`: the import is a path that
// Bun.file can open, in development and inside the compiled executable alike.

declare module '*.mmdb' {
  const path: string
  export default path
}
