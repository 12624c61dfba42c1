// passes/static_kv_cache: the rewrite of growing caches into TensorScatter
// buffers, checked on IR text (the numbers are checked end to end by
// tests/e2e/test_kv_cache.py in ONNX Runtime and the executor).
#include "passes/static_kv_cache.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "core/ir/text.h"
#include "gtest/gtest.h"

namespace pt2onnx::passes {
namespace {

// One decode layer: K and V caches grown by Concat along axis 2, read by
// an Attention (options in `attention`), the past length read through Shape.
std::string Layer(const std::string& attention, const std::string& mask_line = "") {
  return R"(opset 24
input q: float32[s0, 4, 1, 8]
input past_k: float32[s0, 2, s1, 8]
input past_v: float32[s0, 2, s1, 8]
input k: float32[s0, 2, 1, 8]
input v: float32[s0, 2, 1, 8]
)" + mask_line + R"(pk = Concat<axis=2>(past_k, k)
pv = Concat<axis=-2>(past_v, v)
p = Shape<start=2, end=3>(past_k)
)" + attention + R"(
info pk: float32[s0, 2, s1 + 1, 8]
info pv: float32[s0, 2, s1 + 1, 8]
output y: float32[s0, 4, 1, 8]
output pk: float32[s0, 2, s1 + 1, 8]
output pv: float32[s0, 2, s1 + 1, 8]
output p: int64[1]
)";
}

struct Rewritten {
  StaticKvCacheLayout layout;
  std::string text;
  std::string json;
};

Rewritten Rewrite(const std::string& text) {
  absl::StatusOr<ir::Model> model = ir::ParseModel(text);
  EXPECT_TRUE(model.ok()) << model.status();
  absl::StatusOr<StaticKvCacheLayout> layout = MakeKvCacheStatic(*model);
  EXPECT_TRUE(layout.ok()) << layout.status();
  EXPECT_TRUE(ir::Verify(model->graph).ok());
  Rewritten r{*layout, ir::PrintModel(*model), ""};
  for (const auto& [key, value] : model->metadata) {
    if (key == kKvCacheMetadataKey) r.json = value;
  }
  return r;
}

TEST(StaticKvCache, CachesBecomeBuffersWrittenByTensorScatter) {
  Rewritten r = Rewrite(Layer("y = Attention(q, pk, pv)"));
  ASSERT_EQ(r.layout.groups.size(), 1u);
  EXPECT_EQ(r.layout.attentions_on_buffers, 1);
  const StaticKvCacheGroup& g = r.layout.groups[0];
  EXPECT_EQ(g.past_length, "past_length");
  EXPECT_EQ(g.capacity_dim, "cache_capacity");
  ASSERT_EQ(g.caches.size(), 2u);
  EXPECT_EQ(g.caches[0].input, "past_k");
  EXPECT_EQ(g.caches[0].output, "pk");
  EXPECT_EQ(g.caches[1].axis, 2);
  EXPECT_EQ(r.text, R"(opset 24
input q: float32[s0, 4, 1, 8]
input past_k: float32[s0, 2, cache_capacity, 8]
input past_v: float32[s0, 2, cache_capacity, 8]
input k: float32[s0, 2, 1, 8]
input v: float32[s0, 2, 1, 8]
input past_length: int64[]
init kv_cache_const: int64[1] = [0]
past_length_1d = Unsqueeze(past_length, kv_cache_const)
kv_cache_batch = Shape<start=0, end=1>(past_k)
kv_cache_write_indices = Expand(past_length_1d, kv_cache_batch)
k_length = Shape<start=2, end=3>(k)
pk_length = Add(past_length_1d, k_length)
pk = TensorScatter<axis=2>(past_k, k, kv_cache_write_indices)
pv = TensorScatter<axis=2>(past_v, v, kv_cache_write_indices)
p = Concat<axis=0>(past_length_1d)
n3_nonpad_kv_seqlen = Expand(pk_length, kv_cache_batch)
y = Attention(q, pk, pv, , , , n3_nonpad_kv_seqlen)
output y: float32[s0, 4, 1, 8]
output pk: float32[s0, 2, cache_capacity, 8]
output pv: float32[s0, 2, cache_capacity, 8]
output p: int64[1]
)");
  EXPECT_EQ(r.json,
            R"({"form":"static","groups":[{"past_length":"past_length","capacity_dim":"cache_capacity","caches":[)"
            R"({"input":"past_k","output":"pk","axis":2},{"input":"past_v","output":"pv","axis":2}]}]})");
}

TEST(StaticKvCache, MaskIsPaddedToTheCapacity) {
  Rewritten r = Rewrite(Layer("y = Attention(q, pk, pv, m)", "input m: bool[s0, 1, 1, s1 + 1]\n"));
  EXPECT_EQ(r.layout.attentions_on_buffers, 1);
  EXPECT_EQ(r.text, R"(opset 24
input q: float32[s0, 4, 1, 8]
input past_k: float32[s0, 2, cache_capacity, 8]
input past_v: float32[s0, 2, cache_capacity, 8]
input k: float32[s0, 2, 1, 8]
input v: float32[s0, 2, 1, 8]
input m: bool[s0, 1, 1, s1 + 1]
input past_length: int64[]
init kv_cache_const: int64[1] = [0]
init kv_cache_pad_value: bool[] = [0]
init kv_cache_const_1: int64[1] = [-1]
past_length_1d = Unsqueeze(past_length, kv_cache_const)
kv_cache_batch = Shape<start=0, end=1>(past_k)
kv_cache_write_indices = Expand(past_length_1d, kv_cache_batch)
k_length = Shape<start=2, end=3>(k)
pk_length = Add(past_length_1d, k_length)
pk = TensorScatter<axis=2>(past_k, k, kv_cache_write_indices)
pv = TensorScatter<axis=2>(past_v, v, kv_cache_write_indices)
p = Concat<axis=0>(past_length_1d)
m_capacity = Shape<start=2, end=3>(past_k)
m_missing = Sub(m_capacity, pk_length)
m_pads = Concat<axis=0>(kv_cache_const, m_missing)
m_to_capacity = Pad(m, m_pads, kv_cache_pad_value, kv_cache_const_1)
n3_nonpad_kv_seqlen = Expand(pk_length, kv_cache_batch)
y = Attention(q, pk, pv, m_to_capacity, , , n3_nonpad_kv_seqlen)
output y: float32[s0, 4, 1, 8]
output pk: float32[s0, 2, cache_capacity, 8]
output pv: float32[s0, 2, cache_capacity, 8]
output p: int64[1]
)");
}

TEST(StaticKvCache, CausalAttentionReadsTheFilledPrefix) {
  Rewritten r = Rewrite(Layer("y = Attention<is_causal=1>(q, pk, pv)"));
  EXPECT_EQ(r.layout.attentions_on_buffers, 0);
  EXPECT_EQ(r.text, R"(opset 24
input q: float32[s0, 4, 1, 8]
input past_k: float32[s0, 2, cache_capacity, 8]
input past_v: float32[s0, 2, cache_capacity, 8]
input k: float32[s0, 2, 1, 8]
input v: float32[s0, 2, 1, 8]
input past_length: int64[]
init kv_cache_const: int64[1] = [0]
init kv_cache_const_1: int64[1] = [2]
past_length_1d = Unsqueeze(past_length, kv_cache_const)
kv_cache_batch = Shape<start=0, end=1>(past_k)
kv_cache_write_indices = Expand(past_length_1d, kv_cache_batch)
k_length = Shape<start=2, end=3>(k)
pk_length = Add(past_length_1d, k_length)
pk = TensorScatter<axis=2>(past_k, k, kv_cache_write_indices)
pk_filled = Slice(pk, kv_cache_const, pk_length, kv_cache_const_1)
v_length = Shape<start=2, end=3>(v)
pv_length = Add(past_length_1d, v_length)
pv = TensorScatter<axis=2>(past_v, v, kv_cache_write_indices)
pv_filled = Slice(pv, kv_cache_const, pv_length, kv_cache_const_1)
p = Concat<axis=0>(past_length_1d)
y = Attention<is_causal=1>(q, pk_filled, pv_filled)
output y: float32[s0, 4, 1, 8]
output pk: float32[s0, 2, cache_capacity, 8]
output pv: float32[s0, 2, cache_capacity, 8]
output p: int64[1]
)");
}

TEST(StaticKvCache, BroadcastMaskKeepsThePrefix) {
  Rewritten r = Rewrite(Layer("y = Attention(q, pk, pv, m)", "input m: bool[s0, 1, 1, 1]\n"));
  EXPECT_EQ(r.layout.attentions_on_buffers, 0);
  EXPECT_TRUE(absl::StrContains(r.text, "y = Attention(q, pk_filled, pv_filled, m)")) << r.text;
}

TEST(StaticKvCache, OtherReadersOfThePastReadItsFilledPart) {
  Rewritten r = Rewrite(R"(opset 24
input past: float32[s0, s1, 8]
input x: float32[s0, 1, 8]
pc = Concat<axis=1>(past, x)
doubled = Add(past, past)
output pc: float32[s0, s1 + 1, 8]
output doubled: float32[s0, s1, 8]
)");
  EXPECT_EQ(r.text, R"(opset 24
input past: float32[s0, cache_capacity, 8]
input x: float32[s0, 1, 8]
input past_length: int64[]
init kv_cache_const: int64[1] = [0]
init kv_cache_const_1: int64[1] = [1]
past_length_1d = Unsqueeze(past_length, kv_cache_const)
kv_cache_batch = Shape<start=0, end=1>(past)
kv_cache_write_indices = Expand(past_length_1d, kv_cache_batch)
pc = TensorScatter<axis=1>(past, x, kv_cache_write_indices)
past_past = Slice(past, kv_cache_const, past_length_1d, kv_cache_const_1)
doubled = Add(past_past, past_past)
output pc: float32[s0, cache_capacity, 8]
output doubled: float32[s0, s1, 8]
)");
}

TEST(StaticKvCache, OneLengthPerPastSymbol) {
  Rewritten r = Rewrite(R"(opset 24
input a: float32[1, 2, s1, 8]
input b: float32[1, 2, s2, 8]
input x: float32[1, 2, 1, 8]
ac = Concat<axis=2>(a, x)
bc = Concat<axis=2>(b, x)
output ac: float32[1, 2, s1 + 1, 8]
output bc: float32[1, 2, s2 + 1, 8]
)");
  ASSERT_EQ(r.layout.groups.size(), 2u);
  EXPECT_EQ(r.layout.groups[1].past_length, "past_length_1");
  EXPECT_EQ(r.layout.groups[1].capacity_dim, "cache_capacity_1");
  EXPECT_EQ(r.text, R"(opset 24
input a: float32[1, 2, cache_capacity, 8]
input b: float32[1, 2, cache_capacity_1, 8]
input x: float32[1, 2, 1, 8]
input past_length: int64[]
input past_length_1: int64[]
init kv_cache_const: int64[1] = [0]
past_length_1d = Unsqueeze(past_length, kv_cache_const)
kv_cache_batch = Shape<start=0, end=1>(a)
kv_cache_write_indices = Expand(past_length_1d, kv_cache_batch)
past_length_1_1d = Unsqueeze(past_length_1, kv_cache_const)
kv_cache_batch_1 = Shape<start=0, end=1>(b)
kv_cache_write_indices_1 = Expand(past_length_1_1d, kv_cache_batch_1)
ac = TensorScatter<axis=2>(a, x, kv_cache_write_indices)
bc = TensorScatter<axis=2>(b, x, kv_cache_write_indices_1)
output ac: float32[1, 2, cache_capacity, 8]
output bc: float32[1, 2, cache_capacity_1, 8]
)");
}

TEST(StaticKvCache, WhatIsNoGrowingCacheIsLeftAlone) {
  for (const char* text : {
           // the concatenation is not returned
           "opset 24\ninput a: float32[1, s1, 8]\ninput x: float32[1, 1, 8]\nc = Concat<axis=1>(a, x)\n"
           "y = Relu(c)\noutput y: float32[1, s1 + 1, 8]\n",
           // along the batch axis
           "opset 24\ninput a: float32[s1, 8]\ninput x: float32[1, 8]\nc = Concat<axis=0>(a, x)\n"
           "output c: float32[s1 + 1, 8]\n",
           // a fixed past length
           "opset 24\ninput a: float32[1, 6, 8]\ninput x: float32[1, 1, 8]\nc = Concat<axis=1>(a, x)\n"
           "output c: float32[1, 7, 8]\n",
           // the input appended, not grown
           "opset 24\ninput a: float32[1, s1, 8]\ninput x: float32[1, 1, 8]\nc = Concat<axis=1>(x, a)\n"
           "output c: float32[1, s1 + 1, 8]\n",
       }) {
    absl::StatusOr<ir::Model> model = ir::ParseModel(text);
    ASSERT_TRUE(model.ok()) << model.status();
    const std::string before = ir::PrintModel(*model);
    absl::StatusOr<StaticKvCacheLayout> layout = MakeKvCacheStatic(*model);
    ASSERT_TRUE(layout.ok()) << layout.status();
    EXPECT_TRUE(layout->groups.empty()) << text;
    EXPECT_EQ(ir::PrintModel(*model), before);
    EXPECT_TRUE(model->metadata.empty());
  }
}

TEST(StaticKvCache, NeedsOpset24) {
  absl::StatusOr<ir::Model> model = ir::ParseModel(absl::StrReplaceAll(Layer("y = Attention(q, pk, pv)"),
                                                                       {{"opset 24", "opset 23"}}));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<StaticKvCacheLayout> layout = MakeKvCacheStatic(*model);
  EXPECT_EQ(layout.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(layout.status().message(), "opset 24")) << layout.status();
}

}  // namespace
}  // namespace pt2onnx::passes
