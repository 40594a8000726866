// A static server for the site on 127.0.0.1, on a free port: what any web host does,
// for the browser test and the benchmark (no Python, no cross-origin headers needed).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const types = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm",
               ".data": "application/octet-stream", ".json": "application/json", ".safetensors": "application/octet-stream"};

export function serveSite(dir, port = 0) {
    const root = path.resolve(dir);
    const server = http.createServer((req, res) => {
        const name = decodeURIComponent(new URL(req.url, "http://x").pathname);
        const file = path.join(root, name.endsWith("/") ? name + "index.html" : name);
        if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
            res.writeHead(404);
            return res.end();
        }
        res.writeHead(200, {"Content-Type": types[path.extname(file)] || "application/octet-stream",
                            "Content-Length": fs.statSync(file).size});
        fs.createReadStream(file).pipe(res);
    });
    return new Promise(resolve => server.listen(port, "127.0.0.1", () => resolve(server)));
}
