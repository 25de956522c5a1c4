/**
 * Headless Chromium for browser tests: Debian's `chromium` package (`/usr/bin/chromium`, or
 * `CHROMIUM_PATH`), driven by playwright-core, with every background fetch of the browser itself
 * turned off so a page's requests are the only traffic.
 */
import { chromium, type Browser } from 'playwright-core'

/** Launches the browser. @throws with the path tried when Chromium is not installed. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  })
}
