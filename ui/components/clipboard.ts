// Copy buttons (a secret shown once, a recovery link or code, a failure's request ID).
import { announce } from './status.ts'

/** Puts `text` on the clipboard and says so; where the browser refuses, says to select and copy it. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text)
    announce('Copied.')
  } catch {
    announce('Copying is not allowed here; select the text and copy it.')
  }
}
