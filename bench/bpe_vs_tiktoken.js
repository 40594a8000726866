#!/usr/bin/env node
// Encode throughput of our GPT-2 BPE (build/bpe_bench) against js-tiktoken, on the same
// text in the same run: bench/data/prose_en.txt repeated to at least 512 KiB, as
// bpe_bench.cpp builds it. Also checks that both give the same number of tokens.
//
// Usage: node bench/bpe_vs_tiktoken.js [BUILD_DIR]   (default: build)
// Needs js-tiktoken: (cd tests/bpe && npm ci).
"use strict";

const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const root = path.join(__dirname, "..");
const buildDir = path.resolve(process.argv[2] || path.join(root, "build"));
const benchExe = path.join(buildDir, "bpe_bench");
if (!fs.existsSync(benchExe)) {
  console.error(`${benchExe} not found: build it with cmake --build ${buildDir} --target bpe_bench`);
  process.exit(1);
}
let getEncoding;
try {
  ({ getEncoding } = require(path.join(root, "tests/bpe/node_modules/js-tiktoken")));
} catch {
  console.error("js-tiktoken not installed: run (cd tests/bpe && npm ci)");
  process.exit(1);
}

const jsTiktokenVersion = JSON.parse(
  fs.readFileSync(path.join(root, "tests/bpe/node_modules/js-tiktoken/package.json"), "utf8")).version;

const once = fs.readFileSync(path.join(__dirname, "data/prose_en.txt"), "utf8");
let text = "";
while (Buffer.byteLength(text, "utf8") < 512 * 1024) text += once;
const bytes = Buffer.byteLength(text, "utf8");
const MB = 1e6;

// js-tiktoken: a warm-up pass, then whole-text encodes for at least 3 s.
const enc = getEncoding("gpt2");
const jsTokens = enc.encode(text, ["<|endoftext|>"]).length;
let runs = 0;
const start = process.hrtime.bigint();
let elapsed = 0;
while (elapsed < 3) {
  enc.encode(text, ["<|endoftext|>"]);
  ++runs;
  elapsed = Number(process.hrtime.bigint() - start) / 1e9;
}
const jsMBs = (bytes * runs) / elapsed / MB;

// Ours: Google Benchmark's own timing, read from its JSON report.
const report = JSON.parse(execFileSync(benchExe, [
  "--benchmark_filter=^BM_Gpt2EncodeProse$", "--benchmark_min_time=3", "--benchmark_format=json",
], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
const ours = report.benchmarks.find((b) => b.name === "BM_Gpt2EncodeProse");
const oursMBs = ours.bytes_per_second / MB;

console.log(`text: ${(bytes / 1024).toFixed(0)} KiB of English prose`);
console.log(`tokens: attnscope ${ours.tokens}, js-tiktoken ${jsTokens}${ours.tokens === jsTokens ? "" : "  MISMATCH"}`);
console.log(`attnscope Gpt2Tokenizer: ${oursMBs.toFixed(1)} MB/s`);
console.log(`js-tiktoken ${jsTiktokenVersion} (Node ${process.version}): ${jsMBs.toFixed(1)} MB/s`);
console.log(`ratio attnscope / js-tiktoken: ${(oursMBs / jsMBs).toFixed(2)}x`);
if (ours.tokens !== jsTokens) process.exit(1);
