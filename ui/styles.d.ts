// Style sheets are bundled by Bun's bundler into the hashed main.<hash>.css.
declare module '*.css' {}
