// Hugging Face's JavaScript Hub library on the cache attnscope shares with it:
//   node interop.mjs MODULES download HUB_URL CACHE REPO   snapshotDownload into CACHE (as
//                                                          huggingface_hub's snapshot_download)
//   node interop.mjs MODULES read CACHE REPO                 prints what scanCacheDir finds of REPO,
//                                                          and each file's path as downloadFileToCacheDir
//                                                          resolves it at the commit, with no server
import { createRequire } from "node:module";
import { relative, resolve } from "node:path";
const [modules, what, ...rest] = process.argv.slice(2);
const hub = createRequire(resolve(modules) + "/")("@huggingface/hub");
console.debug = () => {};  // the library's "Downloading ..." lines

if (what === "download") {
    const [hubUrl, cacheDir, repo] = rest;
    const snapshot = await hub.snapshotDownload({ repo, hubUrl, cacheDir });
    console.log(snapshot);
} else if (what === "read") {
    const [cacheDir, repo] = rest;
    const scan = await hub.scanCacheDir(cacheDir);
    const found = [...scan.repos].find((r) => r.id.name === repo);
    if (!found) throw new Error(repo + " not found in " + cacheDir + ": " + JSON.stringify(scan.warnings));
    const revisions = [...found.revisions].map((r) => ({  // files by their path in the repository
        commit: r.commitOid, refs: [...r.refs], files: [...r.files].map((f) => [relative(r.path, f.path), f.blob.size]).sort(),
    }));
    const commit = revisions[0].commit;
    const paths = [];
    for (const [path] of revisions[0].files)  // an unreachable server: every file must come from the cache
        paths.push(await hub.downloadFileToCacheDir({ repo, path, revision: commit, cacheDir, hubUrl: "http://127.0.0.1:9" }));
    console.log(JSON.stringify({ revisions, paths, warnings: scan.warnings.map(String) }));
}
