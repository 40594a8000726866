// The browser app's size and speed (issue 33's targets), measured, not asserted:
//   - the site's transferred size without the shipped model (gzip, as a web server sends it)
//   - time to the first interactive frame in headless chromium from a local server (the
//     first frame drawn with the run, its state published), the median of 5 page loads
//   - frames while the seed slider is dragged on chapter 3 input: the intervals between
//     them and the work in each; the same idle, and the floors of the same canvas (frames
//     that only clear it; one Dear ImGui window)
//   - MHA T=256, d=768, 12 heads, one forward: the wasm engine under node against the
//     native build with one thread, in the same run (attnscope-cli --time 20, 3 runs each)
// Run by scripts/web.sh --bench (it builds what this needs first).
//   node bench/web_bench.mjs SITE_DIR PUPPETEER_CORE_DIR NATIVE_CLI WASM_CLI
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {pathToFileURL} from "node:url";
import zlib from "node:zlib";
import {serveSite} from "../tests/web/serve.mjs";

const [siteDir, puppeteerDir, nativeCli, wasmCli] = process.argv.slice(2);
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
console.log(`machine: ${os.cpus()[0].model}, ${os.cpus().length} cores; node ${process.version}`);

// 1. Size.
let raw = 0, gz = 0;
for (const name of fs.readdirSync(siteDir)) {
    const file = path.join(siteDir, name);
    if (!fs.statSync(file).isFile()) continue;  // models/: downloaded only when chosen
    const bytes = fs.readFileSync(file);
    raw += bytes.length;
    gz += zlib.gzipSync(bytes, {level: 6}).length;
    console.log(`  ${name}: ${(bytes.length / 1e6).toFixed(2)} MB, gzip ${(zlib.gzipSync(bytes, {level: 6}).length / 1e6).toFixed(2)} MB`);
}
console.log(`site without the model: ${(raw / 1e6).toFixed(2)} MB, ${(gz / 1e6).toFixed(2)} MB gzip-compressed (target <= 8 MB)`);

// 2 and 3: the page in headless chromium.
const puppeteer = (await import(pathToFileURL(path.join(puppeteerDir, "lib/esm/puppeteer/puppeteer-core.js")))).default;
const server = await serveSite(siteDir);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await puppeteer.launch({executablePath: "/usr/bin/chromium", headless: "new",
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
           "--ignore-gpu-blocklist"]});
const firsts = [];
for (let i = 0; i < 5; i++) {
    const page = await browser.newPage();
    await page.setViewport({width: 1280, height: 800});
    await page.setCacheEnabled(false);  // each load transfers the site
    await page.evaluateOnNewDocument(() => { window.attnscopePublishState = true; });  // its state and frame times
    const t0 = Date.now();
    await page.goto(base);
    await page.waitForFunction("window.attnscopeState && window.attnscopeState.run_version >= 1 && !window.attnscopeState.computing",
                               {timeout: 120000, polling: "raf"});
    firsts.push(Date.now() - t0);
    if (i < 4) await page.close();
}
console.log(`first interactive frame: median ${median(firsts)} ms of ${firsts.join(", ")} (target <= 3000 ms)`);

// 3. Frames drawn: the intervals between their starts (what a user sees: 16.7 ms at 60 Hz),
// and the work inside each (the app's frame function, GL calls included; with the work of
// a frame held back before it for a recompute, app_frame.cpp).
const stats = (xs) => xs.length ? `median ${median(xs).toFixed(1)} ms, 95th percentile ${pct(xs, 0.95).toFixed(1)} ms` : "no frames";
// The frames that started while `act` ran: [intervals, work].
async function framesDuring(page, act) {
    const t0 = await page.evaluate(() => performance.now());
    await act();
    const t1 = await page.evaluate(() => performance.now());
    const [at, ms] = await page.evaluate(() => [window.attnscopeFrameAt.slice(), window.attnscopeFrameMs.slice()]);
    const inside = at.map((t, i) => [t, ms[i]]).filter(([t]) => t >= t0 && t <= t1);
    return [inside.slice(1).map(([t], i) => t - inside[i][0]), inside.map(([, w]) => w)];
}
const idle = async (page) => framesDuring(page, () => page.waitForFunction(
    "(() => { const a = window.attnscopeFrameAt; return a && a.length > (window.benchMark ??= a.length) + 90; })()",
    {timeout: 120000, polling: 100}));
// The seed slider of `rect` dragged across it, 61 pointer moves.
async function drag(page, r) {
    const y = (r[1] + r[3]) / 2;
    await page.mouse.move(r[0] + 10, y);
    await page.mouse.down();
    for (let k = 0; k <= 60; k++) await page.mouse.move(r[0] + 10 + (r[2] - r[0] - 20) * k / 60, y);
    await page.mouse.up();
}
const page = (await browser.pages()).at(-1);
const st = await page.evaluate(() => window.attnscopeState);
const before = st.run_version;
const [dragged, draggedWork] = await framesDuring(page, () => drag(page, st.widgets.seed));
await page.waitForFunction("!window.attnscopeState.computing", {timeout: 120000});
const runs = (await page.evaluate(() => window.attnscopeState.run_version)) - before;
console.log(`seed slider dragged across (61 moves), the page publishing its state for this count: ${runs} runs shown`);
console.log(`  frame intervals ${stats(dragged)}; work in a frame ${stats(draggedWork)} (target <= 16 ms)`);
// The same drag on a page that publishes no state, as people get it (the slider is where
// the first page's state said), then the same page idle, and the floors: a page whose
// frames only clear the canvas, and one drawing a Dear ImGui window over it.
async function framesPage(kind) {
    const p = await browser.newPage();
    await p.setViewport({width: 1280, height: 800});
    await p.evaluateOnNewDocument(floor => { window.attnscopePublishState = "frames"; window.attnscopeFloor = floor; }, kind);
    await p.goto(base);
    await p.waitForFunction("window.attnscopeFrameAt && window.attnscopeFrameAt.length > 30", {timeout: 120000});
    return p;
}
const plain = await framesPage("");
const [plainDrag, plainWork] = await framesDuring(plain, () => drag(plain, st.widgets.seed));
console.log(`  the same drag without the state: frame intervals ${stats(plainDrag)}; work ${stats(plainWork)}`);
const [plainIdle, plainIdleWork] = await idle(plain);
console.log(`the app idle, 1280x800: frame intervals ${stats(plainIdle)}; work ${stats(plainIdleWork)}`);
for (const kind of ["clear", "imgui"]) {
    const p = await framesPage(kind);
    const [i, w] = await idle(p);
    console.log(`floor, frames that ${kind === "clear" ? "only clear the canvas" : "draw one Dear ImGui window"}: ` +
                `frame intervals ${stats(i)}; work ${stats(w)}`);
    await p.close();
}
await browser.close();
server.close();

// 4. The engine: wasm under node against native with one thread.
const words = Array.from({length: 256}, (_, i) => `w${i}`).join(" ");
const args = ["--variant", "mha", "--d-in", "768", "--d-out", "768", "--heads", "12", "--text", words, "--time", "20",
              "--stages", "weights"];
const timing = (cmd, argv) => JSON.parse(execFileSync(cmd, argv, {
    encoding: "utf8", maxBuffer: 1 << 28, env: {...process.env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1"}})).timing_us.median;
const native = [], wasm = [];
for (let i = 0; i < 3; i++) {
    if (fs.existsSync(nativeCli)) native.push(timing(nativeCli, args));
    wasm.push(timing(process.execPath, [wasmCli, ...args]));
}
const n = native.length ? median(native) / 1000 : NaN, w = median(wasm) / 1000;
console.log(`MHA T=256 d=768 12 heads, one forward: native (1 thread) ${n.toFixed(1)} ms, wasm (node ${process.version}) ` +
            `${w.toFixed(1)} ms: ${(w / n).toFixed(2)}x (target <= 3x)`);
