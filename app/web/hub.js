// The page's downloads from the Hugging Face Hub (app/platform/web_hub.cpp drives them):
// the browser's own fetch, the files kept in Cache Storage for the next visit and an
// offline one, then written into the page's file system in the cache's layout
// (core/model/hub_cache.h) where the engine's loader finds them by repository id.
// Promise chains, not async/await: Debian's emscripten 3.1.6 parses no async functions.
//
// The Hub is https://huggingface.co, or window.attnscopeHubEndpoint when set before the
// page starts (the browser test's Hub on 127.0.0.1). Every request is a plain GET or HEAD
// without custom headers: no preflight, and the Hub (like tests/hub/fake_hub.py) allows
// cross-origin reads. The page sends no token: a gated repository is refused.
Module.attnscopeHub = (function () {
    var CACHE = "attnscope-hub";
    var jobs = {};
    var kept = window.attnscopeKept = {version: 0, models: [], usage: 0, quota: 0};

    function endpoint() {
        return String(window.attnscopeHubEndpoint || "https://huggingface.co").replace(/\/+$/, "");
    }
    function openCache() {
        if (typeof caches === "undefined") return Promise.resolve(null);  // not a secure context
        return caches.open(CACHE).catch(function () { return null; });
    }
    // Keys: each file at its commit, and a snapshot's list (written last: a whole model).
    function fileKey(repo, commit, name) { return endpoint() + "/" + repo + "/resolve/" + commit + "/" + name; }
    function snapshotKey(repo, rev) { return endpoint() + "/" + repo + "/attnscope-snapshot/" + encodeURIComponent(rev); }

    // One line for a failed answer, in the desktop's words (core/hub/hub_files.cpp).
    function failure(repo, rev, name, r) {
        var code = r.headers.get("X-Error-Code") || "";
        return r.text().catch(function () { return ""; }).then(function (body) {
            if (code === "GatedRepo" || ((r.status === 401 || r.status === 403) && body.indexOf("gated") >= 0))
                return repo + " is gated: the page sends no token (the desktop app downloads it with HF_TOKEN set)";
            if (code === "RepoNotFound" || r.status === 401) return "no repository " + repo + " on the Hub at " + endpoint();
            if (code === "RevisionNotFound") return repo + " has no revision " + rev;
            if (code === "EntryNotFound" || r.status === 404) return repo + " has no " + name + " at " + rev;
            return "the Hub at " + endpoint() + " answered HTTP " + r.status + " for " + repo + "'s " + name + ": try again later";
        });
    }
    function get(st, url, method) {
        return fetch(url, {method: method || "GET", signal: st.controller.signal}).catch(function (e) {
            if (st.cancelled) throw e;
            throw new Error("cannot reach the Hub at " + endpoint() + " (" + ((e && e.message) || e) + ")");
        });
    }
    function hex(buffer) {
        return Array.prototype.map.call(new Uint8Array(buffer), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
    }
    // The bytes against the Hub's digests: SHA-256 for a large (LFS) file, git's blob SHA-1
    // for a small one; none known, no crypto.subtle, or a file of 2 GiB or more (Chromium's
    // digest refuses one: measured with a 2.47 GB file): the size alone.
    function verify(repo, info, bytes) {
        var corrupt = function (why) {
            throw new Error(repo + "'s " + info.name + " arrived corrupt (" + why + "): nothing of it was kept; try again");
        };
        if (info.size >= 0 && bytes.length !== info.size) corrupt(bytes.length + " bytes, the Hub said " + info.size);
        if (!(window.crypto && crypto.subtle) || (!info.sha256 && !info.oid) || bytes.length > 0x7fffffff - 64)
            return Promise.resolve();
        var data = bytes;
        if (!info.sha256) {
            var head = new TextEncoder().encode("blob " + bytes.length + "\0");
            data = new Uint8Array(head.length + bytes.length);
            data.set(head);
            data.set(bytes, head.length);
        }
        return crypto.subtle.digest(info.sha256 ? "SHA-256" : "SHA-1", data).then(function (d) {
            if (hex(d) !== (info.sha256 || info.oid)) corrupt("its " + (info.sha256 ? "SHA-256" : "git SHA-1") + " is not the Hub's");
        });
    }
    // What Cache Storage keeps of `bytes`: a Blob of slices, since Chromium makes no Response of
    // one view of 2 GiB or more (measured with a 2.47 GB file).
    function keep(cache, key, bytes) {
        var parts = [];
        for (var at = 0; at < bytes.length; at += 1 << 30) parts.push(bytes.subarray(at, Math.min(bytes.length, at + (1 << 30))));
        return Promise.resolve().then(function () {
            return cache.put(key, new Response(new Blob(parts)));
        }).catch(function () {});  // no room: the model still opens, the next visit downloads it again
    }
    // A response's body into one array (its size known: no second copy), counting progress.
    function body(st, r, size) {
        var reader = r.body.getReader(), bytes = new Uint8Array(Math.max(size, 0)), at = 0, parts = [];
        function pump() {
            return reader.read().then(function (chunk) {
                if (chunk.done) {
                    if (size >= 0 && at <= size && !parts.length) return bytes.subarray(0, at);
                    var all = new Uint8Array(at), to = 0;  // more or other than the Hub said: verify says so
                    parts.forEach(function (p) { all.set(p, to); to += p.length; });
                    return all;
                }
                var c = chunk.value;
                if (!parts.length && at + c.length <= bytes.length) bytes.set(c, at);
                else {
                    if (!parts.length) parts.push(bytes.subarray(0, at));
                    parts.push(c);
                }
                at += c.length;
                st.done += c.length;
                st.arrived += c.length;
                return pump();
            });
        }
        return pump();
    }

    function start(repo, rev, folder) {
        var st = jobs[repo] = {phase: "asking", file: "", index: 0, count: 0, done: 0, total: 0, arrived: 0,
                               started: 0, error: "", config: "", weights: 0, largest: null, from_storage: false,
                               controller: new AbortController(), cancelled: false};
        var cache = null, commit = "", files = [];  // files: [name, bytes], written at the end
        var base = endpoint() + "/" + repo;
        var live = function () { if (st.cancelled) throw new Error("cancelled"); };
        function install() {
            var snap = folder + "/snapshots/" + commit;
            FS.mkdirTree(snap);
            files.forEach(function (f) { FS.writeFile(snap + "/" + f[0], f[1], {canOwn: true}); });
            if (!/^[0-9a-f]{40}$/.test(rev)) {  // refs/REV last: it names a snapshot that is whole
                FS.mkdirTree((folder + "/refs/" + rev).replace(/\/[^\/]*$/, ""));
                FS.writeFile(folder + "/refs/" + rev, commit);
            }
        }
        // A second visit: every file from Cache Storage, no request to the Hub.
        function restore(list) {
            st.from_storage = true;
            commit = list.commit;
            return list.files.reduce(function (chain, f) {
                return chain.then(function () { return cache.match(fileKey(repo, commit, f.name)); }).then(function (r) {
                    if (!r) throw new Error("missing");
                    return r.arrayBuffer();
                }).then(function (b) {
                    if (b.byteLength !== f.size) throw new Error("missing");
                    files.push([f.name, new Uint8Array(b)]);
                });
            }, Promise.resolve()).then(install, function () {  // incomplete: from the Hub
                st.from_storage = false;
                files = [];
                return download();
            });
        }
        // A file's size and digests: the Hub's file list, else a HEAD of its resolve URL
        // (the size only: a browser sees the headers of the redirect's target, not its own).
        var tree = null;
        function info(name) {
            if (tree) {
                var e = tree[name];
                return Promise.resolve(e ? {name: name, size: e.size, oid: e.lfs ? "" : e.oid, sha256: e.lfs ? e.lfs.oid : ""} : null);
            }
            return get(st, base + "/resolve/" + commit + "/" + name, "HEAD").then(function (r) {
                if (r.status === 404 && (r.headers.get("X-Error-Code") || "EntryNotFound") === "EntryNotFound") return null;
                if (!r.ok) return failure(repo, rev, name, r).then(function (line) { throw new Error(line); });
                var size = r.headers.get("X-Linked-Size") || r.headers.get("Content-Length");
                var etag = (r.headers.get("X-Linked-Etag") || "").replace(/"/g, "");
                return {name: name, size: size === null ? -1 : Number(size), oid: "", sha256: /^[0-9a-f]{64}$/.test(etag) ? etag : ""};
            });
        }
        // A file, from Cache Storage when an earlier (cancelled) download kept it whole.
        function fetchFile(f, progress) {
            return (cache ? cache.match(fileKey(repo, commit, f.name)) : Promise.resolve(null)).then(function (hit) {
                return hit ? hit.arrayBuffer().then(function (b) { return new Uint8Array(b); }) : null;
            }).then(function (here) {
                live();
                if (here && here.length === f.size) {
                    if (progress) st.done += here.length;
                    return here;
                }
                return get(st, base + "/resolve/" + commit + "/" + f.name).then(function (r) {
                    if (!r.ok) return failure(repo, rev, f.name, r).then(function (line) { throw new Error(line); });
                    return body(progress ? st : {}, r, f.size);
                }).then(function (bytes) {
                    return verify(repo, f, bytes).then(function () {
                        if (!cache) return bytes;
                        return keep(cache, fileKey(repo, commit, f.name), bytes).then(function () { return bytes; });
                    });
                });
            }).then(function (bytes) {
                files.push([f.name, bytes]);
                return bytes;
            });
        }
        function download() {
            var configInfo = {name: "config.json", size: -1, oid: "", sha256: ""}, llama = false, names = [], infos = [];
            return get(st, base + "/resolve/" + encodeURIComponent(rev) + "/config.json").then(function (r) {
                if (!r.ok) return failure(repo, rev, "config.json", r).then(function (line) { throw new Error(line); });
                commit = r.headers.get("X-Repo-Commit") || "";
                if (!/^[0-9a-f]{40}$/.test(commit))
                    throw new Error("the server at " + endpoint() + " did not answer as the Hub does for " + repo +
                                    "'s config.json (no X-Repo-Commit): is it a Hub?");
                return r.arrayBuffer();
            }).then(function (b) {
                var text = new TextDecoder().decode(b), type = "";
                try { type = JSON.parse(text).model_type || ""; } catch (e) {
                    throw new Error(repo + "'s config.json is not a JSON object: not a model attnscope runs");
                }
                if (["llama", "qwen2", "qwen3"].indexOf(type) >= 0) llama = true;
                else if (type !== "gpt2")
                    throw new Error(repo + " is " + (type ? "a " + String(type).slice(0, 40) + " model" : "a model of no model_type") +
                                    " (its config.json): attnscope runs gpt2, llama, qwen2 and qwen3 models");
                st.config = text;
                files.push(["config.json", new Uint8Array(b)]);
                var kept = cache ? keep(cache, fileKey(repo, commit, "config.json"), new Uint8Array(b)) : null;
                return Promise.resolve(kept).then(function () {
                    return get(st, endpoint() + "/api/models/" + repo + "/tree/" + commit);
                });
            }).then(function (r) {
                if (!r.ok) return null;
                return r.json().then(function (list) {
                    tree = {};
                    list.forEach(function (e) { if (e.type === "file") tree[e.path] = e; });
                }, function () { tree = null; });
            }).then(function () {
                return info("model.safetensors");
            }).then(function (single) {
                if (single) return [single];
                return info("model.safetensors.index.json").then(function (index) {
                    if (!index)
                        throw new Error(repo + " has no model.safetensors or model.safetensors.index.json: attnscope reads safetensors weights");
                    return fetchFile(index, false).then(function (bytes) {
                        var shards = {};
                        try {
                            var map = JSON.parse(new TextDecoder().decode(bytes)).weight_map;
                            Object.keys(map).forEach(function (k) { shards[map[k]] = true; });
                        } catch (e) { throw new Error(repo + "'s model.safetensors.index.json has no weight_map"); }
                        return Promise.all(Object.keys(shards).sort().map(info));
                    });
                });
            }).then(function (weights) {
                if (weights.some(function (w) { return !w; })) throw new Error(repo + " lacks a shard its index names");
                return (llama ? info("tokenizer.json") : Promise.resolve(null)).then(function (tok) {
                    infos = (tok ? [tok] : []).concat(weights);
                    st.weights = weights.reduce(function (sum, w) { return sum + Math.max(w.size, 0); }, 0);
                    st.largest = weights.reduce(function (most, w) { return w.size > most.size ? w : most; }, weights[0]);
                    st.total = infos.reduce(function (sum, f) { return sum + Math.max(f.size, 0); }, 0);
                    st.count = infos.length;
                    live();
                    st.phase = "sized";  // web_hub.cpp decides whether it fits the page's memory
                    return new Promise(function (go) { st.go = go; });
                });
            }).then(function (refusal) {
                live();
                if (refusal) throw new Error(refusal);
                st.phase = "downloading";
                st.started = performance.now();
                return infos.reduce(function (chain, f, i) {
                    return chain.then(function () {
                        st.index = i + 1;
                        st.file = f.name;
                        return fetchFile(f, true);
                    });
                }, Promise.resolve());
            }).then(function () {
                install();
                if (!cache) return;
                var list = {repo: repo, commit: commit, files: files.map(function (f) { return {name: f[0], size: f[1].length}; })};
                return cache.put(snapshotKey(repo, rev), new Response(JSON.stringify(list))).catch(function () {});
            });
        }
        openCache().then(function (c) {
            cache = c;
            return c ? c.match(snapshotKey(repo, rev)) : null;
        }).then(function (r) {
            return r ? r.json().catch(function () { return null; }) : null;
        }).then(function (list) {
            live();
            return list && list.commit ? restore(list) : download();
        }).then(function () {
            st.phase = "done";
            refreshKept();
        }).catch(function (e) {
            st.phase = "failed";
            st.error = st.cancelled ? "the download of " + repo + " was cancelled: choose it in the model list again to go on " +
                                      "(the files that came whole are kept)"
                                    : String((e && e.message) || e);
            refreshKept();
        });
    }

    // What Cache Storage keeps: each whole model's list, and the origin's usage.
    function refreshKept() {
        var models = [];
        openCache().then(function (cache) {
            if (!cache) return;
            return cache.keys().then(function (keys) {
                return Promise.all(keys.filter(function (k) { return k.url.indexOf("/attnscope-snapshot/") >= 0; }).map(function (k) {
                    return cache.match(k).then(function (r) { return r.json(); }).then(function (list) {
                        var bytes = list.files.reduce(function (sum, f) { return sum + f.size; }, 0);
                        if (!models.some(function (m) { return m.repo === list.repo; })) models.push({repo: list.repo, bytes: bytes});
                    }).catch(function () {});
                }));
            });
        }).then(function () {
            return navigator.storage && navigator.storage.estimate ? navigator.storage.estimate() : {};
        }).then(function (e) {
            models.sort(function (a, b) { return a.repo < b.repo ? -1 : 1; });
            kept.models = models;
            kept.usage = e.usage || 0;
            kept.quota = e.quota || 0;
            kept.version++;
        }).catch(function () {});
    }

    function remove(repo) {
        openCache().then(function (cache) {
            if (!cache) return;
            return cache.keys().then(function (keys) {
                return Promise.all(keys.filter(function (k) {
                    var path = new URL(k.url).pathname;
                    return path.indexOf("/" + repo + "/resolve/") === 0 || path.indexOf("/" + repo + "/attnscope-snapshot/") === 0;
                }).map(function (k) { return cache.delete(k); }));
            });
        }).then(refreshKept, refreshKept);
    }

    refreshKept();
    return {
        start: start,
        // The job as JSON for web_hub.cpp ("" when none).
        status: function (repo) {
            var st = jobs[repo];
            if (!st) return "";
            return JSON.stringify({phase: st.phase, file: st.file, index: st.index, count: st.count, done: st.done,
                                   total: st.total, arrived: st.arrived, seconds: st.started ? (performance.now() - st.started) / 1000 : 0,
                                   error: st.error, config: st.phase === "sized" ? st.config : "", weights: st.weights,
                                   largest: st.largest ? st.largest.size : 0, largest_file: st.largest ? st.largest.name : "",
                                   from_storage: st.from_storage});
        },
        proceed: function (repo, refusal) {
            var st = jobs[repo];
            if (st && st.go) { st.phase = "downloading"; st.go(refusal); st.go = null; }
        },
        cancel: function (repo) {
            var st = jobs[repo];
            if (!st || st.phase === "done" || st.phase === "failed") return;
            st.cancelled = true;
            st.controller.abort();
            if (st.go) { st.go(""); st.go = null; }
        },
        forget: function (repo) { delete jobs[repo]; },
        kept: function () { return JSON.stringify(kept); },
        remove: remove,
    };
})();
