#include "text/hf_bpe.h"

#include <queue>

#include "text/utf8.h"

namespace attn {

namespace {

struct Symbol {
    int32_t id;
    int32_t prev;  // index of the symbol before, -1 at the start
    int32_t next;  // index of the symbol after, -1 at the end
    bool alive;
};

// A candidate merge of the symbol at `pos` with the one after it. The queue pops the
// lowest rank first, and of equal ranks the leftmost (tokenizers' Merge ordering).
struct Candidate {
    int32_t rank;
    int32_t pos;
    int32_t merged_id;
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

// The word's characters as vocabulary ids; characters outside the vocabulary become unk
// (fused if fuse_unk) or are dropped when there is no unk, as tokenizers does.
std::vector<Symbol> initial_symbols(const HfBpe& bpe, std::string_view word) {
    std::vector<Symbol> symbols;
    for (std::size_t i = 0; i < word.size();) {
        std::size_t len = decode_utf8_char(word, i).len;
        if (len == 0) len = 1;
        const auto it = bpe.vocab.find(std::string(word.substr(i, len)));
        i += len;
        int32_t id;
        if (it != bpe.vocab.end()) {
            id = it->second;
        } else if (bpe.unk) {
            if (bpe.fuse_unk && !symbols.empty() && symbols.back().id == *bpe.unk) continue;
            id = *bpe.unk;
        } else {
            continue;
        }
        const auto index = static_cast<int32_t>(symbols.size());
        symbols.push_back({id, index - 1, -1, true});
        if (index > 0) symbols[index - 1].next = index;
    }
    return symbols;
}

}  // namespace

void HfBpe::encode_word(std::string_view word, std::vector<int32_t>& out) const {
    if (ignore_merges) {
        if (const auto it = vocab.find(std::string(word)); it != vocab.end()) {
            out.push_back(it->second);
            return;
        }
    }
    std::vector<Symbol> symbols = initial_symbols(*this, word);
    std::priority_queue<Candidate> queue;
    const auto offer = [&](int32_t pos) {
        const int32_t next = symbols[pos].next;
        if (next < 0) return;
        const auto it = merges.find(pair_key(symbols[pos].id, symbols[next].id));
        if (it != merges.end()) queue.push({it->second.first, pos, it->second.second});
    };
    for (int32_t pos = 0; pos + 1 < static_cast<int32_t>(symbols.size()); ++pos) offer(pos);

    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol& left = symbols[top.pos];
        if (!left.alive || left.next < 0) continue;
        // Stale: one side merged since this candidate was queued.
        const auto it = merges.find(pair_key(left.id, symbols[left.next].id));
        if (it == merges.end() || it->second.second != top.merged_id) continue;
        Symbol& right = symbols[left.next];
        left.id = top.merged_id;
        right.alive = false;
        left.next = right.next;
        if (right.next >= 0) symbols[right.next].prev = top.pos;
        if (left.prev >= 0) offer(left.prev);
        offer(top.pos);
    }
    for (const Symbol& s : symbols)
        if (s.alive) out.push_back(s.id);
}

}  // namespace attn
