#!/usr/bin/env node
// The reference for tests/cli_hf_tokenizer.test.sh: transformers.js's tokenizers (the
// @lenml/tokenizers port) on a tokenizer.json, with its default encode (special tokens
// added as the post_processor says) and a decode that keeps special tokens and does not
// clean up spaces (Hugging Face's tokenizers does neither).
// Usage: node oracle.js NODE_MODULES TOKENIZER_JSON CONFIG_JSON|- STRINGS_JSON
// prints a JSON list of {token_ids, decoded}, one per string.
"use strict";

const fs = require("fs");
const path = require("path");

const [modules, tokenizerPath, configPath, stringsPath] = process.argv.slice(2);
const { TokenizerLoader } = require(path.resolve(modules, "@lenml/tokenizers"));
const tokenizerJSON = JSON.parse(fs.readFileSync(tokenizerPath, "utf8"));
const tokenizerConfig = configPath === "-" ? {} : JSON.parse(fs.readFileSync(configPath, "utf8"));
const tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });

const out = JSON.parse(fs.readFileSync(stringsPath, "utf8")).map((text) => {
  const ids = tokenizer.encode(text, { add_special_tokens: true });
  const decoded = ids.length === 0 ? "" : tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  return { token_ids: ids, decoded };
});
process.stdout.write(JSON.stringify(out) + "\n");
