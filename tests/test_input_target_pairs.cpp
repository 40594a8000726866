// Chapter 2's sliding-window sampling (core/text/input_target_pairs.h).
#include <catch2/catch.hpp>

#include "text/gpt2_tokenizer.h"
#include "text/input_target_pairs.h"
#include "text/tokenizer.h"

using Ids = std::vector<int64_t>;

TEST_CASE("window reproduces the book's first two batches of the-verdict (max_length 4, stride 1)", "[window]") {
    // The book's batches start at the verdict's first tokens, which our GPT-2 tokenizer gives
    // from its opening words: "I", " H", "AD", " always", " thought", " Jack".
    const attn::Gpt2Tokenizer gpt2;
    const Ids ids = gpt2.encode_ids("I HAD always thought Jack Gisburn");
    const auto pairs = attn::input_target_pairs(ids, 4, 1);
    REQUIRE(pairs.size() >= 2);
    CHECK(pairs[0].input == Ids{40, 367, 2885, 1464});
    CHECK(pairs[0].target == Ids{367, 2885, 1464, 1807});
    CHECK(pairs[1].input == Ids{367, 2885, 1464, 1807});
    CHECK(pairs[1].target == Ids{2885, 1464, 1807, 3619});
}

TEST_CASE("window target is the input shifted by one token", "[window]") {
    // The book's x/y example: x = enc_sample[:4], y = enc_sample[1:5].
    const Ids sample{290, 4920, 2241, 287, 257};
    const auto pairs = attn::input_target_pairs(sample, 4, 1);
    REQUIRE(pairs.size() == 1);
    CHECK(pairs[0].input == Ids{290, 4920, 2241, 287});
    CHECK(pairs[0].target == Ids{4920, 2241, 287, 257});
}

TEST_CASE("window starts follow range(0, len - max_length, stride)", "[window]") {
    Ids ids(10);
    for (int64_t i = 0; i < 10; ++i) ids[i] = 100 + i;
    // range(0, 6, 4) = 0, 4
    auto pairs = attn::input_target_pairs(ids, 4, 4);
    REQUIRE(pairs.size() == 2);
    CHECK(pairs[0].input == Ids{100, 101, 102, 103});
    CHECK(pairs[1].input == Ids{104, 105, 106, 107});
    CHECK(pairs[1].target == Ids{105, 106, 107, 108});
    // range(0, 7, 2) = 0, 2, 4, 6
    pairs = attn::input_target_pairs(ids, 3, 2);
    REQUIRE(pairs.size() == 4);
    CHECK(pairs[3].input == Ids{106, 107, 108});
    CHECK(pairs[3].target == Ids{107, 108, 109});
    // range(0, 9, 1): nine windows of one token
    CHECK(attn::input_target_pairs(ids, 1, 1).size() == 9);
}

TEST_CASE("window gives no pairs when the ids are not longer than max_length", "[window]") {
    CHECK(attn::input_target_pairs(Ids{1, 2, 3, 4}, 4, 1).empty());
    CHECK(attn::input_target_pairs(Ids{1, 2}, 4, 1).empty());
    CHECK(attn::input_target_pairs(Ids{}, 1, 1).empty());
    CHECK(attn::input_target_pairs(Ids{1, 2, 3, 4, 5}, 4, 1).size() == 1);
}

TEST_CASE("window rejects max_length or stride below 1 with a message naming it", "[window]") {
    const Ids ids{1, 2, 3, 4, 5};
    CHECK_THROWS_WITH(attn::input_target_pairs(ids, 0, 1), Catch::Contains("max_length"));
    CHECK_THROWS_WITH(attn::input_target_pairs(ids, -3, 1), Catch::Contains("max_length"));
    CHECK_THROWS_WITH(attn::input_target_pairs(ids, 2, 0), Catch::Contains("stride"));
    CHECK_THROWS_AS(attn::input_target_pairs(ids, 2, -1), attn::TokenizeError);
}
