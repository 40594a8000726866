#!/usr/bin/env node
// Writes tests/bpe/bpe_golden.json: strings and the GPT-2 ids js-tiktoken gives them, for
// tests/test_bpe.cpp. Run `npm ci` here first, then `node make_bpe_golden.js`.
//
// Ill-formed UTF-8 cannot be put through js-tiktoken (a JS string holds no stray bytes),
// so for those cases ("hex" instead of "text") the ids come from a reference that spells
// out our documented rule: each stray byte is one character outside \s, \p{L} and \p{N}.
// It decodes the bytes strictly, turns each stray byte b into the lone surrogate
// U+DC00+b (which js-tiktoken's regex also classes as none of \s, \p{L}, \p{N}), splits with
// js-tiktoken's own pattern, and byte-pair merges each piece's original bytes with
// js-tiktoken's ranks and merge rule. The same reference is checked against
// js-tiktoken.encode on every well-formed case before anything is written.
"use strict";

const fs = require("fs");
const path = require("path");
const { getEncoding } = require("js-tiktoken");
const jsTiktokenVersion = JSON.parse(
  fs.readFileSync(path.join(__dirname, "node_modules/js-tiktoken/package.json"), "utf8")).version;

const enc = getEncoding("gpt2");
const SPECIAL = "<|endoftext|>";
const encodeLikeTheBook = (text) => enc.encode(text, [SPECIAL]);

// ---- reference for byte strings -------------------------------------------------------

// Strict UTF-8 (Unicode Table 3-7). Returns [codePoint, length] or null for a stray byte.
function decodeAt(bytes, i) {
  const b0 = bytes[i];
  if (b0 < 0x80) return [b0, 1];
  let len, cp, lo = 0x80, hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) { len = 2; cp = b0 & 0x1f; }
  else if (b0 >= 0xe0 && b0 <= 0xef) { len = 3; cp = b0 & 0x0f; if (b0 === 0xe0) lo = 0xa0; if (b0 === 0xed) hi = 0x9f; }
  else if (b0 >= 0xf0 && b0 <= 0xf4) { len = 4; cp = b0 & 0x07; if (b0 === 0xf0) lo = 0x90; if (b0 === 0xf4) hi = 0x8f; }
  else return null;
  if (i + len > bytes.length || bytes[i + 1] < lo || bytes[i + 1] > hi) return null;
  for (let k = 1; k < len; ++k) {
    if ((bytes[i + k] & 0xc0) !== 0x80) return null;
    cp = (cp << 6) | (bytes[i + k] & 0x3f);
  }
  return [cp, len];
}

// Bytes -> [string, byteOf]: the string has one code point per character, a stray byte as
// U+DC00+b; byteOf maps each UTF-16 index of the string to its byte offset.
function escapeStrayBytes(bytes) {
  let s = "";
  const byteOf = [];
  for (let i = 0; i < bytes.length;) {
    const d = decodeAt(bytes, i);
    const ch = d ? String.fromCodePoint(d[0]) : String.fromCharCode(0xdc00 + bytes[i]);
    for (let k = 0; k < ch.length; ++k) byteOf.push(i);
    s += ch;
    i += d ? d[1] : 1;
  }
  byteOf.push(bytes.length);
  return [s, byteOf];
}

// js-tiktoken's bytePairMerge/bytePairEncode (lite.cjs), over enc.rankMap.
function bytePairEncode(piece) {
  const whole = enc.rankMap.get(piece.join(","));
  if (whole != null) return [whole];
  let parts = Array.from({ length: piece.length }, (_, i) => ({ start: i, end: i + 1 }));
  while (parts.length > 1) {
    let min = null;
    for (let i = 0; i < parts.length - 1; i++) {
      const rank = enc.rankMap.get(piece.slice(parts[i].start, parts[i + 1].end).join(","));
      if (rank != null && (min == null || rank < min[0])) min = [rank, i];
    }
    if (min == null) break;
    const i = min[1];
    parts[i] = { start: parts[i].start, end: parts[i + 1].end };
    parts.splice(i + 1, 1);
  }
  return parts.map((p) => enc.rankMap.get(piece.slice(p.start, p.end).join(",")));
}

function referenceEncodeBytes(bytes) {
  const [s, byteOf] = escapeStrayBytes(bytes);
  const ids = [];
  let start = 0;
  for (;;) {
    const special = s.indexOf(SPECIAL, start);
    const end = special < 0 ? s.length : special;
    for (const m of s.substring(start, end).matchAll(new RegExp(enc.patStr, "ug"))) {
      const from = byteOf[start + m.index], to = byteOf[start + m.index + m[0].length];
      ids.push(...bytePairEncode(Array.from(bytes.subarray(from, to))));
    }
    if (special < 0) return ids;
    ids.push(enc.specialTokens[SPECIAL]);
    start = special + SPECIAL.length;
  }
}

// ---- the strings ----------------------------------------------------------------------

// Deterministic, so the file only changes when this script does.
function prng(seed) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

const cases = [];  // {name, text} or {name, bytes}
const add = (name, text) => cases.push({ name, text });
const addBytes = (name, bytes) => cases.push({ name, bytes: Uint8Array.from(bytes) });

add("book: seed 003 tiktoken example",
  "Hello, do you like tea? <|endoftext|> In the sunlit terraces" + "of someunknownPlace.");
add("book: SimpleTokenizerV2 joined text",
  "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace.");
add("book: verdict opening",
  "I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough--so it was no great surprise to me to hear that, in the height of his glory, he had dropped his painting, married a rich widow, and established himself in a villa on the Riviera.");
add("book: Mrs. Gisburn", "\"It's the last he painted, you know,\"\nMrs. Gisburn said with pardonable pride.");
add("book: regex example", "Hello, world. Is this-- a test?");

const prose = [
  "The quick brown fox jumps over the lazy dog.",
  "Attention is all you need.",
  "Large language models are trained to predict the next token in a sequence.",
  "Self-attention lets every token look at every other token in the context window.",
  "She sells sea shells by the sea shore; the shells she sells are surely seashells.",
  "In 1492, Columbus sailed the ocean blue.",
  "It was the best of times, it was the worst of times, it was the age of wisdom.",
  "Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my purse…",
  "To be, or not to be: that is the question.",
  "All happy families are alike; each unhappy family is unhappy in its own way.",
  "The mitochondria is the powerhouse of the cell.",
  "Photosynthesis converts light energy into chemical energy stored in glucose.",
  "Dr. Smith, Ph.D., arrived at 3 p.m. on Jan. 5th.",
  "E-mail me at jane.doe@example.com or visit https://example.org/path?q=1&r=2#frag.",
  "Hyphenated-words, under_scored_words, and camelCaseWords all split differently.",
  "supercalifragilisticexpialidocious antidisestablishmentarianism floccinaucinihilipilification",
  "Pneumonoultramicroscopicsilicovolcanoconiosis is a long word.",
  "UPPERCASE TEXT SHOUTS; lowercase text whispers; MiXeD cAsE confuses.",
  "The café served crème brûlée and a jalapeño omelette.",
  "Naïve coöperation in the façade of the résumé.",
  "He said, \"Don't go!\" and she replied, 'Why not?'",
  "Wait... what?! Really??? No way!!!",
  "(Parenthetical remarks) [square brackets] {curly braces} <angle brackets>",
  "Semicolons; colons: dashes – em dashes — and ellipses …",
  "“Smart quotes” and ‘single smart quotes’ are different characters.",
  "The price is $19.99 (or €17,50 or £15.00 or ¥2,000).",
  "Temperature: -40°C equals -40°F.",
  "A tab\tseparated\tline and a new\nline.",
  "Once upon a time, in a land far, far away, there lived a king who had three daughters.",
  "Transformers use multi-head attention, layer normalization, and residual connections.",
  "The embedding dimension is 768 and there are 12 attention heads.",
  "Tokenization splits text into subword units using byte pair encoding.",
  "someunknownPlace and anotherUnknownWord and yetAnotherOne",
  "terracesof palaceof sunlitterraces",
  "I think, therefore I am.",
  "Ask not what your country can do for you — ask what you can do for your country.",
  "The rain in Spain stays mainly in the plain.",
  "Colorless green ideas sleep furiously.",
  "Buffalo buffalo Buffalo buffalo buffalo buffalo Buffalo buffalo.",
  "This sentence ends with a space ",
  " This sentence starts with a space",
  "  Two leading spaces and two trailing  ",
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.",
  "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.",
  "The year 2024 had 366 days because it was a leap year.",
  "Version 3.11.7 fixed bug #12345 reported on 2023-12-04.",
  "Mr. and Mrs. Dursley, of number four, Privet Drive, were proud to say that they were perfectly normal.",
  "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.",
  "The cat sat on the mat. The dog sat on the log. The frog sat on the bog.",
  "Q: What is 2+2? A: 4.",
];
prose.forEach((t, i) => add(`prose ${i}`, t));

const code = [
  "int main() { return 0; }",
  "#include <iostream>\nint main() {\n    std::cout << \"Hello, world!\" << std::endl;\n}\n",
  "def f(x):\n    return x ** 2\n\nprint(f(3))\n",
  "for (let i = 0; i < n; ++i) {\n\tsum += a[i];\n}",
  "const add = (a, b) => a + b;",
  "if x != None and y >= 0: pass",
  "SELECT id, name FROM users WHERE age > 21 ORDER BY name DESC;",
  "{\"key\": \"value\", \"list\": [1, 2, 3], \"nested\": {\"a\": null}}",
  "<html><body><p class=\"x\">Hi</p></body></html>",
  "git commit -m \"fix: handle empty input\" && git push origin main",
  "x = [i*i for i in range(10) if i % 2 == 0]",
  "    indented with four spaces\n        and eight\n",
  "\t\ttwo tabs\n\t\t\tthree tabs",
  "template <typename T> T max(T a, T b) { return a > b ? a : b; }",
  "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }",
  "public static void main(String[] args) throws IOException {}",
  "$ echo $HOME; ls -la | grep '^d' > out.txt 2>&1",
  "a+=1;b-=2;c*=3;d/=4;e%=5;f<<=6;g>>=7;",
  "/* block comment */ // line comment\n# hash comment",
  "regex = r'([,.:;?_!\"()\\']|--|\\s)'",
  "std::vector<std::pair<int, std::string>> v{{1, \"one\"}, {2, \"two\"}};",
  "0x1F600 0b1010 0o777 1e-9 6.022e23 .5 5.",
  "foo_bar_baz = FooBarBaz(fooBar=1, BAR_BAZ=2)",
  "matrix[i][j] = matrix[i - 1][j - 1] + cost;",
  "console.log(`template ${literal} string`);",
  "lambda x: x if x else None",
  "#!/usr/bin/env bash\nset -euo pipefail\n",
  "---\ntitle: \"YAML\"\nitems:\n  - one\n  - two\n",
  "| col1 | col2 |\n|------|------|\n| a    | b    |",
  "@decorator\nasync def handler(request): await request.json()",
];
code.forEach((t, i) => add(`code ${i}`, t));

const numbers = [
  "0", "7", "42", "123", "1234", "12345", "123456789", "3.14159265358979",
  "1,000,000", "1 000 000", "-273.15", "+1 (555) 123-4567", "2024-01-31T23:59:59Z",
  "10^6", "99.9%", "1/2 + 1/3 = 5/6", "½ ¼ ¾", "Ⅻ Ⅳ ⅻ", "²³¹", "٠١٢٣٤٥٦٧٨٩",
  "०१२३४५६७८९", "１２３４５", "①②③", "𝟘𝟙𝟚", "1st 2nd 3rd 4th", "v1.2.3-rc.4",
  "0000000000", "11111111111111111111", "3.0e+08m/s", "A1B2C3D4",
];
numbers.forEach((t, i) => add(`numbers ${i}`, t));

const contractions = [
  "I'm", "you're", "they've", "she'll", "he'd", "it's", "don't", "can't", "won't",
  "I'M YOU'RE IT'S", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'x", "''s", " 's", "'''",
  "rock 'n' roll", "the '90s", "o'clock", "'twas the night", "y'all'd've",
  "James's book and the Joneses' house", "it’s (curly apostrophe)", "'s's's", "ma'am",
];
contractions.forEach((t, i) => add(`contractions ${i}`, t));

const emoji = [
  "😀", "😀😃😄", "I ❤️ NY", "👍🏽 good job", "👨‍👩‍👧‍👦 family", "🇫🇷🇯🇵🇺🇸", "🏳️‍🌈",
  "emoji at end 🎉", "🎉 emoji at start", "a😀b", "1️⃣2️⃣3️⃣", "☕ coffee ☕", "🤖🧠💡",
  "©®™", "★☆✓✗", "🙂 🙃 🫠", "💩", "x²+y²=z²", "🫶🏿", "👩🏻‍💻 coding",
  "Ready? 🚀🚀🚀 Go!", "❤", "✨✨", "🐍 python", "🦀 rust",
];
emoji.forEach((t, i) => add(`emoji ${i}`, t));

const cjk = [
  "你好，世界！", "我喜欢喝茶。", "今天天气很好，我们去公园吧。", "東京は日本の首都です。",
  "ひらがなとカタカナ", "こんにちは、お元気ですか？", "안녕하세요 세계", "한국어 텍스트입니다.",
  "中文English混合text", "机器学习 machine learning", "「引用」『二重引用』", "ＡＢＣ全角",
  "漢字かな交じり文", "𠮷野家", "。、・ー〜", "中文 数字 123 和 ４５６",
  "注意力机制是Transformer的核心。", "一二三四五六七八九十", "龍", "ｶﾀｶﾅ半角",
];
cjk.forEach((t, i) => add(`cjk ${i}`, t));

const scripts = [
  "Привет, мир!", "Ελληνικά γράμματα", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया",
  "สวัสดีชาวโลก", "Xin chào thế giới", "Grüße aus Köln", "Ça va? Très bien!", "Ñandú y pingüino",
  "İstanbul’da ılık bir gün", "Łódź i Kraków", "ქართული", "Հայերեն", "አማርኛ",
  "தமிழ் எழுத்து", "ᚠᚢᚦᚨᚱᚲ", "Ꭰ Ꭱ Ꭲ", "e\u0301 combining acute", "a\u0308\u0304 stacked marks",
];
scripts.forEach((t, i) => add(`scripts ${i}`, t));

const whitespace = [
  "", " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r\n\r\n", " \n ", "\t\t\t",
  "a b", "a  b", "a   b", "a\tb", "a\t\tb", "a\nb", "a\n\nb", "a \n b", "a\t b",
  "a \tb", "a\n\tb", "trailing space ", "trailing spaces   ", "trailing tab\t",
  "trailing newline\n", "trailing mix \t\n ", "\n\nleading newlines", "   leading spaces",
  "\tleading tab", "a\u00a0b nbsp", "a\u3000b ideographic space", "a\u2028b line separator",
  "a\u2029b paragraph separator", "a\u0085b next line (not \\s in JS)", "a\ufeffb bom",
  "a\u180eb mongolian vowel separator", "a\u200bb zero width space", "a\u2003\u2003b em spaces",
  "a\f\vb form feed vertical tab", "word\n\n\nword", "  \n  \n  ", "x \u00a0y", "\u00a0\u00a0x",
];
whitespace.forEach((t, i) => add(`whitespace ${i}`, t));

const specials = [
  "<|endoftext|>", "<|endoftext|><|endoftext|>", "a<|endoftext|>b", "a <|endoftext|> b",
  "a  <|endoftext|>  b", "text <|endoftext|>", "<|endoftext|> text", "x<|endoftext|>\n\ny",
  "<|endoftext|", "|endoftext|>", "<|endoftext|>>", "<<|endoftext|>", "<|ENDOFTEXT|>",
  "<| endoftext |>", "doc one.<|endoftext|>doc two.<|endoftext|>doc three.",
  "  \t<|endoftext|>\t  ", "😀<|endoftext|>😀", "'s<|endoftext|>'s", "<|endoftext|>'s",
  "123<|endoftext|>456", "<|endoftext|><|endoftext|><|endoftext|>", "<|startoftext|>",
];
specials.forEach((t, i) => add(`special ${i}`, t));

// Every printable ASCII character, alone and together.
add("ascii printable run", Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(""));
add("ascii control characters", Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("") + "\x7f");
add("long letter run", "a".repeat(1000));
add("long digit run", "9".repeat(500));
add("long punctuation run", "!?".repeat(300));
add("long space run then word", " ".repeat(200) + "word");
add("repeated word", "the ".repeat(200));
add("mixed long line", "abc123!@# ".repeat(100));

// Random strings drawn from characters of every class the pre-tokeniser tells apart.
const pool = [
  ..."abcXYZ", ..."0123", ..."!?.,-'\"", " ", " ", " ", "\t", "\n", "\u00a0", "\u3000",
  "é", "ß", "ж", "中", "字", "あ", "😀", "👍", "🏽", "\u200d", "\u0301", "½", "٣", "Ⅻ",
  "s", "t", "re", "ve", "ll", "'", "—", "…", "€",
];
const rnd = prng(20240601);
for (let i = 0; i < 60; ++i) {
  const len = 1 + Math.floor(rnd() * 40);
  let s = "";
  for (let k = 0; k < len; ++k) s += pool[Math.floor(rnd() * pool.length)];
  add(`random ${i}`, s);
}

// Ill-formed UTF-8.
const utf8 = (s) => Array.from(Buffer.from(s, "utf8"));
const invalid = [
  ["lone 0xff", [0xff]],
  ["0xfe 0xff", [0xfe, 0xff]],
  ["stray continuation inside word", [...utf8("abc"), 0x80, ...utf8("def")]],
  ["latin-1 cafe", [...utf8("caf"), 0xe9]],
  ["latin-1 naive cafe", [...utf8("na"), 0xef, ...utf8("ve caf"), 0xe9, ...utf8(" au lait")]],
  ["truncated 2-byte at end", [...utf8("end "), 0xc3]],
  ["truncated euro then word", [0xe2, 0x82, ...utf8(" euro")]],
  ["truncated euro then letter", [0xe2, 0x82, ...utf8("a")]],
  ["overlong slash", [0xc0, 0xaf]],
  ["overlong 3-byte", [0xe0, 0x80, 0xaf]],
  ["encoded surrogate", [0xed, 0xa0, 0x80]],
  ["above U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
  ["5-byte form", [0xf8, 0x88, 0x80, 0x80, 0x80]],
  ["continuation run", [0x80, 0x81, 0x82, 0xbf]],
  ["stray byte between punctuation", [...utf8("!"), 0xff, ...utf8("!")]],
  ["space then stray byte", [...utf8("a "), 0xff, ...utf8(" b")]],
  ["stray byte before contraction", [0xff, ...utf8("'s")]],
  ["stray byte glued to word", [...utf8("hello "), 0xff, ...utf8("world")]],
  ["stray bytes around special", [0xff, ...utf8("<|endoftext|>"), 0xfe]],
  ["emoji then truncated emoji", [...utf8("😀"), 0xf0, 0x9f, 0x98]],
  ["truncated emoji then space", [0xf0, 0x9f, 0x98, ...utf8(" ok")]],
  ["stray byte in whitespace", [...utf8("a \t"), 0x85, ...utf8("\t b")]],
  ["stray byte before digits", [0xa0, ...utf8("123")]],
  ["cp1252 smart quotes", [0x93, ...utf8("quoted"), 0x94]],
  ["nul and stray", [0x00, 0xff, 0x00]],
];
invalid.forEach(([name, bytes]) => addBytes(`invalid utf-8: ${name}`, bytes));
const rb = prng(777);
for (let i = 0; i < 10; ++i) {
  const len = 5 + Math.floor(rb() * 50);
  addBytes(`invalid utf-8: random bytes ${i}`, Array.from({ length: len }, () => Math.floor(rb() * 256)));
}

// ---- check the reference, then write --------------------------------------------------

const out = [];
for (const c of cases) {
  if (c.text !== undefined) {
    const ids = encodeLikeTheBook(c.text);
    const ref = referenceEncodeBytes(Uint8Array.from(Buffer.from(c.text, "utf8")));
    if (JSON.stringify(ids) !== JSON.stringify(ref))
      throw new Error(`byte reference disagrees with js-tiktoken on ${c.name}`);
    out.push({ name: c.name, text: c.text, ids });
  } else {
    let wellFormed = true;
    try { new TextDecoder("utf-8", { fatal: true }).decode(c.bytes); } catch { wellFormed = false; }
    if (wellFormed) throw new Error(`${c.name} is well-formed UTF-8; give it as text`);
    out.push({ name: c.name, hex: Buffer.from(c.bytes).toString("hex"), ids: referenceEncodeBytes(c.bytes) });
  }
}

const doc = {
  about: "GPT-2 ids for tests/test_bpe.cpp, written by tests/bpe/make_bpe_golden.js. " +
    "'text' cases: js-tiktoken gpt2 encode(text, ['<|endoftext|>']). " +
    "'hex' cases (ill-formed UTF-8): the script's byte reference, see its header.",
  js_tiktoken: jsTiktokenVersion,
  node: process.version,
  unicode: process.versions.unicode,
  cases: out,
};
const file = path.join(__dirname, "bpe_golden.json");
// One case a line, so a diff of this file shows which strings changed.
const { cases: _, ...header } = doc;
const head = JSON.stringify(header, null, 1).replace(/\n}$/, ",\n");
fs.writeFileSync(file, head + ' "cases": [\n' + out.map((c) => "  " + JSON.stringify(c)).join(",\n") + "\n ]\n}\n");
console.log(`${out.length} cases (${out.filter((c) => c.hex).length} ill-formed UTF-8) -> ${file}`);
