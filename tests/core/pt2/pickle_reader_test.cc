#include "core/pt2/pickle_reader.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/core/pt2/torch_save_builder.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::pt2 {
namespace {

using testutil::PickleBuilder;
using testutil::StorageSpec;

using ::pt2onnx::testing::HasStatus;

absl::StatusOr<PickleDocument> Read(const PickleBuilder& p) {
  return ReadPickle(AsBytes(p.bytes()));
}

TEST(PickleReaderTest, DecodesScalarsAndContainers) {
  PickleBuilder p;
  p.Mark().None().Bool(true).Bool(false).Int(7).Int(300).Int(-5);
  p.Int(int64_t{1} << 40).Float(1.5).Str("héllo").Tuple();
  p.Stop();
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(doc->DebugString(doc->root()),
            "(None, True, False, 7, 300, -5, 1099511627776, 1.5, 'héllo')");
}

TEST(PickleReaderTest, Long1SignExtendsShortEncodings) {
  PickleBuilder p;
  p.Op(0x8a).Raw(std::string("\x03\x00\x00\xff", 4));  // LONG1 -65536
  p.Op(0x8a).Raw(std::string("\x00", 1));          // LONG1 0
  p.TupleN(2).Stop();
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(doc->DebugString(doc->root()), "(-65536, 0)");
}

TEST(PickleReaderTest, MemoSharesMutableContainers) {
  // l = []; d = {'a': l, 'b': l}; l.append(1): both keys see the append.
  PickleBuilder p;
  p.EmptyDict().Put(0).Mark();
  p.Str("a").EmptyList().Put(1);
  p.Str("b").Get(1);
  p.SetItems();
  p.Get(1).Int(1).Append();  // pushes l, appends, leaves l on the stack
  p.TupleN(2).Stop();        // (d, l)
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(doc->DebugString(doc->root()), "({'a': [1], 'b': [1]}, [1])");
}

TEST(PickleReaderTest, BuildsTensorsParametersAndOrderedDicts) {
  PickleBuilder p;
  p.Global("collections", "OrderedDict").EmptyTuple().Reduce().Mark();
  p.Str("w").Parameter({"FloatStorage", "0", 6}, 0, {2, 3}, {3, 1});
  p.Str("b").Tensor({"HalfStorage", "1", 4}, 1, {3}, {1});
  p.SetItems();
  // OrderedDict state (_metadata), as torch writes for state_dict().
  p.EmptyDict().Str("_metadata").EmptyDict().SetItem().Build();
  p.Stop();
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  const PickleValue& top = doc->at(doc->root());
  ASSERT_EQ(top.kind, PickleKind::kDict);
  EXPECT_TRUE(top.ordered);
  ASSERT_EQ(top.items.size(), 4u);
  const PickleValue& w = doc->at(top.items[1]);
  ASSERT_EQ(w.kind, PickleKind::kTensor);
  EXPECT_TRUE(w.tensor->is_param);
  EXPECT_TRUE(w.tensor->requires_grad);
  EXPECT_EQ(w.tensor->dtype, DataType::kFloat);
  EXPECT_EQ(w.tensor->sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(w.tensor->strides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(w.tensor->storage.key, "0");
  EXPECT_EQ(w.tensor->storage.numel, 6);
  const PickleValue& b = doc->at(top.items[3]);
  ASSERT_EQ(b.kind, PickleKind::kTensor);
  EXPECT_FALSE(b.tensor->is_param);
  EXPECT_EQ(b.tensor->dtype, DataType::kFloat16);
  EXPECT_EQ(b.tensor->storage_offset, 1);
  EXPECT_EQ(doc->DebugString(top.items[3]),
            "tensor(float16, sizes=[3], strides=[1], offset=1, key='1')");
}

TEST(PickleReaderTest, RebuildTensorV3TakesDtypeFromArgument) {
  PickleBuilder p;
  p.Global("torch._utils", "_rebuild_tensor_v3").Mark();
  p.Storage({"UntypedStorage", "0", 8}).Int(0).IntTuple({4}).IntTuple({1});
  p.Bool(false).OrderedDict().Global("torch", "uint16").Tuple().Reduce();
  p.Stop();
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  const PickleValue& t = doc->at(doc->root());
  ASSERT_EQ(t.kind, PickleKind::kTensor);
  EXPECT_EQ(t.tensor->dtype, DataType::kUint16);
  EXPECT_TRUE(t.tensor->storage.untyped);
  EXPECT_EQ(t.tensor->storage.numel, 8);
}

TEST(PickleReaderTest, RebuildFromTypeV2WithParameterType) {
  // _rebuild_from_type_v2(func, type, func_args, state)
  PickleBuilder q;
  q.Global("torch._tensor", "_rebuild_from_type_v2").Mark();
  q.Global("torch._utils", "_rebuild_tensor_v2");
  q.Global("torch.nn.parameter", "Parameter");
  q.Mark().Storage({"FloatStorage", "0", 2}).Int(0).IntTuple({2});
  q.IntTuple({1}).Bool(false).OrderedDict().Tuple();
  q.EmptyDict().Tuple().Reduce().Stop();
  absl::StatusOr<PickleDocument> doc = Read(q);
  ASSERT_TRUE(doc.ok()) << doc.status();
  const PickleValue& t = doc->at(doc->root());
  ASSERT_EQ(t.kind, PickleKind::kTensor);
  EXPECT_TRUE(t.tensor->is_param);
}

TEST(PickleReaderTest, BytesViaCodecsEncode) {
  PickleBuilder p;
  p.Global("_codecs", "encode").Str("a\xc3\xbf").Str("latin1").TupleN(2);
  p.Reduce().Stop();
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  const PickleValue& v = doc->at(doc->root());
  ASSERT_EQ(v.kind, PickleKind::kBytes);
  EXPECT_EQ(v.text, std::string("a\xff"));
}

TEST(PickleReaderTest, RejectsForbiddenGlobal) {
  PickleBuilder p;
  p.Global("os", "system").Str("echo hi").TupleN(1).Reduce().Stop();
  absl::Status status = Read(p).status();
  EXPECT_TRUE(HasStatus(status, absl::StatusCode::kInvalidArgument,
                        "pickle global 'os.system' is not allowed; pt2onnx "
                        "only loads tensors and containers"));
  EXPECT_TRUE(HasStatus(status, absl::StatusCode::kInvalidArgument,
                        "offset 2"));
}

TEST(PickleReaderTest, RejectsCallingANonCallableGlobal) {
  PickleBuilder p;
  p.Global("torch", "float32").EmptyTuple().Reduce().Stop();
  EXPECT_TRUE(HasStatus(Read(p).status(), absl::StatusCode::kInvalidArgument,
                        "'torch.float32' cannot be called"));
}

TEST(PickleReaderTest, RejectsUnknownOpcodeNamingByteAndOffset) {
  PickleBuilder p;
  p.EmptyList().Op(0x95).Stop();  // FRAME
  EXPECT_TRUE(HasStatus(Read(p).status(), absl::StatusCode::kInvalidArgument,
                        "pickle opcode 0x95 at offset 3: unsupported opcode "
                        "FRAME"));
  PickleBuilder q;
  q.Op(0xfe).Stop();
  EXPECT_TRUE(HasStatus(Read(q).status(), absl::StatusCode::kInvalidArgument,
                        "pickle opcode 0xfe at offset 2"));
}

TEST(PickleReaderTest, RejectsTruncatedPickle) {
  PickleBuilder p;
  p.Str("abcdef").Stop();
  const std::string full = p.bytes();
  // Cut inside the string payload, then just before STOP.
  EXPECT_TRUE(HasStatus(ReadPickle(AsBytes(full).first(9)).status(),
                        absl::StatusCode::kInvalidArgument, "truncated"));
  EXPECT_TRUE(HasStatus(
      ReadPickle(AsBytes(full).first(full.size() - 1)).status(),
      absl::StatusCode::kInvalidArgument, "without STOP"));
}

TEST(PickleReaderTest, RejectsMemoAbuse) {
  PickleBuilder p;
  p.Get(42).Stop();
  EXPECT_TRUE(HasStatus(Read(p).status(), absl::StatusCode::kInvalidArgument,
                        "memo key 42 was never stored"));

  PickleBuilder many;
  many.None();
  for (uint32_t i = 0; i < 20; ++i) many.Put(1000 + i);
  many.Stop();
  PickleLimits limits;
  limits.max_memo_entries = 10;
  EXPECT_TRUE(HasStatus(ReadPickle(AsBytes(many.bytes()), limits).status(),
                        absl::StatusCode::kInvalidArgument,
                        "memo holds more than 10 entries"));
}

TEST(PickleReaderTest, RejectsDeepNesting) {
  PickleBuilder p;
  for (int i = 0; i < 2000; ++i) p.Mark();
  p.Stop();
  EXPECT_TRUE(HasStatus(Read(p).status(), absl::StatusCode::kInvalidArgument,
                        "MARK nesting deeper than 1024"));
}

TEST(PickleReaderTest, SelfReferenceIsHarmless) {
  // l = []; l.append(l): representable (ids), and DebugString stops.
  PickleBuilder p;
  p.EmptyList().Put(0).Get(0).Append().Stop();
  absl::StatusOr<PickleDocument> doc = Read(p);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(doc->DebugString(doc->root(), 2), "[[[...]]]");
}

TEST(PickleReaderTest, RejectsMalformedTensorArguments) {
  PickleBuilder p;
  p.Global("torch._utils", "_rebuild_tensor_v2").Mark();
  p.Storage({"FloatStorage", "0", 6}).Int(0).IntTuple({2, 3}).IntTuple({1});
  p.Bool(false).OrderedDict().Tuple().Reduce().Stop();
  EXPECT_TRUE(HasStatus(Read(p).status(), absl::StatusCode::kInvalidArgument,
                        "tensor has 2 sizes but 1 strides"));

  PickleBuilder q;
  q.Mark().Str("storage").Global("torch", "FloatStorage").Str("0");
  q.Str("cpu").Str("six").Tuple().BinPersId().Stop();
  EXPECT_TRUE(HasStatus(Read(q).status(), absl::StatusCode::kInvalidArgument,
                        "storage numel is a str, expected int"));
}

TEST(PickleReaderTest, UnsupportedDtypeIsUnimplemented) {
  PickleBuilder p;
  p.Global("torch", "qint8").Stop();
  EXPECT_TRUE(HasStatus(Read(p).status(), absl::StatusCode::kUnimplemented,
                        "torch dtype 'qint8'"));
}

}  // namespace
}  // namespace pt2onnx::pt2
