// Models from the Hugging Face Hub in the browser page (issue 56), without the internet:
// tests/hub/fake_hub.py answers on 127.0.0.1 as the Hub does (cross-origin) and the page is
// pointed at it with window.attnscopeHubEndpoint. A link ?model=ORG/NAME downloads the
// repository (the golden Qwen2 model: an index, two shards, a one-character tokenizer)
// with the browser's fetch, showing bytes and a rate, and opens it; opened again, it comes
// from Cache Storage without a request to the Hub; a repository the Hub has not, an
// architecture attnscope does not run, a corrupted byte and weights past the page's memory are each said in
// one line while the last view stays; Remove empties what the browser keeps.
//   node tests/web/hub.test.mjs SITE_DIR PUPPETEER_CORE_DIR WORK_DIR
import {spawn} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {HANG_MS, launchPage, stateWaits} from "./page_lib.mjs";
import {serveSite} from "./serve.mjs";

const [siteDir, puppeteerDir, workDir] = process.argv.slice(2);
const tests = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
let failures = 0;
const check = (name, ok, detail = "") => {
    console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok || !detail ? "" : ": " + detail}`);
    if (!ok) failures++;
    return ok;
};

// The repositories: test/tiny (the golden Qwen2 model, as tests/tiny_llama_hub.sh makes it),
// test/bert (an architecture attnscope does not run), test/huge (test/tiny's files, its
// weights said to be 1 PB), test/corrupt (test/tiny's, a byte of its second shard flipped on the way).
fs.rmSync(workDir, {recursive: true, force: true});
const tiny = path.join(workDir, "tiny"), bert = path.join(workDir, "bert");
fs.mkdirSync(tiny, {recursive: true});
fs.mkdirSync(bert, {recursive: true});
const golden = path.join(tests, "golden", "llama", "qwen2-bias-f16-shards");
for (const f of fs.readdirSync(golden)) fs.copyFileSync(path.join(golden, f), path.join(tiny, f));
const vocab = {};
for (let i = 0; i < 94; i++) vocab[String.fromCharCode(33 + i)] = i;
vocab["\u0120"] = 94;  // byte-level BPE's space
fs.writeFileSync(path.join(tiny, "tokenizer.json"), JSON.stringify({
    version: "1.0", normalizer: null,
    added_tokens: [{id: 95, content: "<|end|>", special: true, normalized: false, single_word: false, lstrip: false, rstrip: false}],
    pre_tokenizer: {type: "ByteLevel", add_prefix_space: false, use_regex: true}, decoder: {type: "ByteLevel"},
    model: {type: "BPE", vocab, merges: []}}));
fs.writeFileSync(path.join(bert, "config.json"), JSON.stringify({model_type: "bert", hidden_size: 8}));
fs.writeFileSync(path.join(bert, "model.safetensors"), "");

const log = path.join(workDir, "hub.log"), portFile = path.join(workDir, "hub.port");
// 30 kB/s: the shards' 63 kB take about two seconds, long enough to see the progress.
const hub = spawn("/usr/bin/python3", [path.join(tests, "hub", "fake_hub.py"), "--port-file", portFile, "--log", log,
                                       "--repo", `test/tiny=${tiny}`, "--repo", `test/bert=${bert}`,
                                       "--repo", `test/huge=${tiny}`, "--huge", "test/huge", "--rate", "30000",
                                       "--repo", `test/corrupt=${tiny}`, "--corrupt", "test/corrupt:model-00002-of-00002.safetensors"],
                  {stdio: "inherit"});
for (let i = 0; i < 100 && !fs.existsSync(portFile); i++) await new Promise(r => setTimeout(r, 100));
const hubPort = fs.readFileSync(portFile, "utf8").trim();
const endpoint = `http://127.0.0.1:${hubPort}`;
const hubLog = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "");

const server = await serveSite(siteDir);
const base = `http://127.0.0.1:${server.address().port}/`;
const {browser, page} = await launchPage(puppeteerDir);
const outside = [], errors = [];
await page.setRequestInterception(true);
page.on("request", r => {  // the site and the Hub (its file server answers as localhost), nothing else
    const u = r.url();
    if (u.startsWith(base) || u.startsWith(endpoint) || u.startsWith(`http://localhost:${hubPort}/`) || u.startsWith("data:"))
        return r.continue();
    outside.push(u);
    r.abort();
});
page.on("pageerror", e => errors.push(String(e)));
page.on("console", m => { if (m.type() === "error" && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
await page.evaluateOnNewDocument(hubAt => {
    window.attnscopePublishState = true;  // as --state-out
    window.attnscopeHubEndpoint = hubAt;
    window.attnscopeActivities = [];  // every download line shown, not only those the test polls
    let published = null;
    Object.defineProperty(window, "attnscopeState", {configurable: true, get: () => published, set: s => {
        published = s;
        const a = s && s.activity;
        if (a && a !== window.attnscopeActivities[window.attnscopeActivities.length - 1]) window.attnscopeActivities.push(a);
    }});
}, endpoint);

const {state, waitState, framesPass, open: openUrl} = stateWaits(page, check, s => (
    {frame: s.frame, computing: s.computing, activity: s.activity, error: s.error, model: s.model,
     model_run: s.model_run && s.model_run.name}));
async function click(widget) {
    await framesPass();  // a popup's first frame may place it before its size is known
    const r = (await state()).widgets[widget];
    await page.mouse.click((r[0] + r[2]) / 2, (r[1] + r[3]) / 2);
}
const open = query => openUrl(base + query);
const opened = "s => !s.computing && s.error === null && s.model_run && s.model_run.name === 'test/tiny'";

// 1. The link opens the repository, downloading it first.
await open("?model=test/tiny&text=ab+c");
await waitState("?model=test/tiny: downloaded from the Hub, then opened", opened);
const lines = await page.evaluate(() => window.attnscopeActivities);
check("its progress showed, with the file, bytes and rate",
      lines.some(l => /^downloading test\/tiny: model-0000[12]-of-00002\.safetensors \([23]\/3\): \d+ kB of \d+ kB, \d+ kB\/s, 0:0\d left$/.test(l)),
      JSON.stringify(lines));
check("config, tokenizer, index and both shards came from the Hub",
      ["config.json", "tokenizer.json", "model.safetensors.index.json", "model-00001-of-00002.safetensors",
       "model-00002-of-00002.safetensors"].every(f => hubLog().includes(`GET /test/tiny/resolve/`) && hubLog().includes(f)),
      hubLog());
await page.waitForFunction("window.attnscopeKept.models.some(m => m.repo === 'test/tiny')", {timeout: HANG_MS}).catch(() => {});
const kept = await page.evaluate(() => JSON.parse(JSON.stringify(window.attnscopeKept)));
check("the browser keeps it, and says how much storage it takes",
      kept.models.length === 1 && kept.models[0].bytes > 60000 && kept.usage > 0, JSON.stringify(kept));

try {  // the page's link names the repository: shared, it opens the same model
    await page.waitForFunction("/[?&]model=test(%2F|\\/)tiny(&|$)/.test(location.search)", {timeout: HANG_MS, polling: 50});
    check("the page's link keeps model=test/tiny", true);
} catch (e) {
    check("the page's link keeps model=test/tiny", false, await page.evaluate(() => location.search));
}

// 2. Opened again (a second visit): from Cache Storage, no request to the Hub.
fs.writeFileSync(log, "");
await open("?model=test/tiny&text=ab+c");
await waitState("opened again: from the browser's storage", opened);
check("without a request to the Hub", hubLog() === "", hubLog());

// 3. Failures, each in one line; the last view stays. Chosen in the model list's Hub field.
async function getRepo(repo) {
    await click("model");
    await waitState("the model list offers the Hub's field", "s => 'hub_repo' in s.widgets");
    await click("hub_repo");
    await page.keyboard.down("Control"); await page.keyboard.press("KeyA"); await page.keyboard.up("Control");
    await framesPass();
    await page.keyboard.type(repo, {delay: 10});
    await click("hub_get");
}
for (const [repo, line] of [["test/absent", `no repository test/absent on the Hub at ${endpoint}`],
                            ["test/bert", "test/bert is a bert model (its config.json): attnscope runs gpt2, llama, qwen2 and qwen3 models"],
                            ["test/corrupt", "test/corrupt's model-00002-of-00002.safetensors arrived corrupt (its SHA-256 is not the Hub's): nothing of it was kept"],
                            ["test/huge", "test/huge's model-00001-of-00002.safetensors is "]]) {
    await getRepo(repo);
    await waitState(`${repo}: said in one line, the last view stays`,
                    `s => (s.error || '').startsWith(${JSON.stringify(line)}) && !s.error.includes('\\n') && ` +
                    "s.model_run && s.model_run.name === 'test/tiny'");
}
const refusal = (await state()).error;
console.log(`     (${refusal})`);
check("past the page's memory: refused before its weights came, naming the largest that fits",
      refusal.includes("the page cannot map a file of 2 GiB or more") && refusal.includes("the largest of the Hub list that opens here is ") &&
      !/GET \/test\/huge\/resolve\/[0-9a-f]+\/model-/.test(hubLog()), hubLog());

// 4. Remove: the browser keeps nothing.
await click("model");
await waitState("the model list shows what the browser keeps", "s => 'hub_remove_0' in s.widgets && 'hub_kept' in s.widgets");
await click("hub_remove_0");
try {
    await page.waitForFunction("window.attnscopeKept.models.length === 0", {timeout: HANG_MS});
    check("Remove empties the browser's storage of it", true);
} catch (e) {
    check("Remove empties the browser's storage of it", false, JSON.stringify(await page.evaluate(() => window.attnscopeKept)));
}
await page.screenshot({path: path.join(workDir, "hub.png")});

check("nothing was fetched from beyond 127.0.0.1", outside.length === 0, outside.join(" "));
check("no error in the page", errors.length === 0, errors.join(" | "));
await browser.close();
server.close();
hub.kill();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
