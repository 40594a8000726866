// What the page's browser tests share: Debian's chromium, headless with SwiftShader's WebGL,
// and the waits on the state the page publishes (window.attnscopeState, the desktop's
// --state-out JSON), never on sleeps.
import {pathToFileURL} from "node:url";
import path from "node:path";

export const HANG_MS = 120000;  // what only a hang reaches

// A 1280x800 page in a new headless chromium: {browser, page}.
export async function launchPage(puppeteerDir) {
    const puppeteer = (await import(pathToFileURL(path.join(puppeteerDir, "lib/esm/puppeteer/puppeteer-core.js")))).default;
    const browser = await puppeteer.launch({
        executablePath: "/usr/bin/chromium", headless: "new",
        args: ["--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
               "--ignore-gpu-blocklist", "--no-first-run", "--disable-background-networking"]});
    const page = await browser.newPage();
    await page.setViewport({width: 1280, height: 800});
    return {browser, page};
}

// The waits, on `page`, reporting through `check(name, ok, detail)`; `brief(state)` is what a
// failed wait prints of the state.
export function stateWaits(page, check, brief) {
    const state = () => page.evaluate(() => window.attnscopeState || null);
    return {
        state,
        // Until `pred(state)` holds (a function's text, run in the page).
        async waitState(name, pred) {
            try {
                await page.waitForFunction(`(() => { const s = window.attnscopeState; return !!s && (${pred})(s); })()`,
                                           {timeout: HANG_MS, polling: 50});
                return check(name, true);
            } catch (e) {
                const s = await state() || {};
                return check(name, false, `not seen within ${HANG_MS / 1000} s; state: ${JSON.stringify(brief(s)).slice(0, 1500)}`);
            }
        },
        // Until `n` more frames were drawn.
        async framesPass(n = 2) {
            const f = (await state()).frame;
            await page.waitForFunction(`window.attnscopeState.frame >= ${f + n}`, {timeout: HANG_MS, polling: 20});
        },
        // The page at `url`, once its second frame is drawn.
        async open(url) {
            await page.goto(url);
            await page.waitForFunction("window.attnscopeState && window.attnscopeState.frame >= 2", {timeout: HANG_MS});
        },
    };
}
