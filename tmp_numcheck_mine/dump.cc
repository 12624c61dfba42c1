#include <fstream>
#include <iostream>
#include <string>
#include <vector>
#include "core/onnx/model_writer.h"
#include "tests/testing/op_test_util.h"
using namespace pt2onnx;
using namespace pt2onnx::testing;
constexpr DataType kF32 = DataType::kFloat;
constexpr DataType kF16 = DataType::kFloat16;
constexpr DataType kI64 = DataType::kInt64;
std::string Aten(const std::string& op) { return "torch.ops.aten." + op; }
pt2::NamedArgument FloatsArg(std::string arg, std::vector<double> v) {
  pt2::NamedArgument n; n.name = arg; n.arg.kind = pt2::Argument::Kind::kFloats; n.arg.floats = v; return n;
}
struct C { std::string name; ProgramBuilder b; int opset = 20; };
C One(std::string name, std::vector<TensorSpec> ins, std::string target, std::vector<pt2::NamedArgument> args,
      std::vector<TensorSpec> outs, int opset = 20) {
  ProgramBuilder b;
  for (auto& i : ins) b.Input(i.name, i.dtype, i.shape);
  b.Node(Aten(target), args, outs);
  for (auto& o : outs) if (o.name.find("_unused_") == std::string::npos) b.Output(o.name);
  return C{name, b, opset};
}
int main(int argc, char** argv) {
  std::string dir = argv[1];
  std::vector<C> cs;
  auto X = [](std::vector<int64_t> s) { return TensorSpec{"x", kF32, s}; };
  // pooling
  cs.push_back(One("maxpool_ceil_extra", {X({1,2,6,6})}, "max_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{3,3}), IntsArg("stride",{2,2}), IntsArg("padding",{1,1}), BoolArg("ceil_mode",true)},
    {{"y",kF32,{1,2,4,4}}}));
  cs.push_back(One("maxpool_ceil_odd_idx", {X({1,2,5,5})}, "max_pool2d_with_indices.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{2,2}), BoolArg("ceil_mode",true)},
    {{"y",kF32,{1,2,3,3}}, {"i",kI64,{1,2,3,3}}}));
  cs.push_back(One("maxpool_dropped", {X({1,2,5,5})}, "max_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{3,3}), IntsArg("stride",{3,3}), IntsArg("padding",{1,1}), BoolArg("ceil_mode",true)},
    {{"y",kF32,{1,2,2,2}}}));
  cs.push_back(One("avgpool_ceil_cip", {X({1,2,5,5})}, "avg_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{2,2}), BoolArg("ceil_mode",true)}, {{"y",kF32,{1,2,3,3}}}));
  cs.push_back(One("avgpool_ceil_nocip", {X({1,2,5,5})}, "avg_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{2,2}), BoolArg("ceil_mode",true), BoolArg("count_include_pad",false)}, {{"y",kF32,{1,2,3,3}}}));
  cs.push_back(One("avgpool_ceil_pad_cip", {X({1,2,6,6})}, "avg_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{3,3}), IntsArg("stride",{2,2}), IntsArg("padding",{1,1}), BoolArg("ceil_mode",true)}, {{"y",kF32,{1,2,4,4}}}));
  cs.push_back(One("avgpool_ceil_pad_nocip", {X({1,2,6,6})}, "avg_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{3,3}), IntsArg("stride",{2,2}), IntsArg("padding",{1,1}), BoolArg("ceil_mode",true), BoolArg("count_include_pad",false)}, {{"y",kF32,{1,2,4,4}}}));
  cs.push_back(One("avgpool_divisor", {X({1,2,6,6})}, "avg_pool2d.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{2,2}), IntsArg("stride",{2,2}), IntsArg("padding",{0,0}), BoolArg("ceil_mode",false), BoolArg("count_include_pad",true), IntArg("divisor_override",3)}, {{"y",kF32,{1,2,3,3}}}));
  cs.push_back(One("adaptive_max_idx", {X({1,3,4,6})}, "adaptive_max_pool2d.default",
    {TensorArg("self","x"), IntsArg("output_size",{2,3})}, {{"y",kF32,{1,3,2,3}}, {"i",kI64,{1,3,2,3}}}));
  cs.push_back(One("maxpool1d_unbatched_idx", {X({3,9})}, "max_pool1d_with_indices.default",
    {TensorArg("self","x"), IntsArg("kernel_size",{3}), IntsArg("stride",{2}), IntsArg("padding",{1})}, {{"y",kF32,{3,5}}, {"i",kI64,{3,5}}}));
  // upsample
  cs.push_back(One("up_nearest_scale", {X({1,2,3,4})}, "upsample_nearest2d.vec",
    {TensorArg("input","x"), NoneArg("output_size"), FloatsArg("scale_factors",{2.0,2.0})}, {{"y",kF32,{1,2,6,8}}}));
  cs.push_back(One("up_nearest_size", {X({1,2,3,4})}, "upsample_nearest2d.vec",
    {TensorArg("input","x"), IntsArg("output_size",{5,7}), NoneArg("scale_factors")}, {{"y",kF32,{1,2,5,7}}}));
  cs.push_back(One("up_nearest_exact_size", {X({1,2,3,4})}, "_upsample_nearest_exact2d.vec",
    {TensorArg("input","x"), IntsArg("output_size",{5,7}), NoneArg("scale_factors")}, {{"y",kF32,{1,2,5,7}}}));
  cs.push_back(One("up_bilinear_ac", {X({1,2,3,4})}, "upsample_bilinear2d.default",
    {TensorArg("self","x"), IntsArg("output_size",{5,7}), BoolArg("align_corners",true)}, {{"y",kF32,{1,2,5,7}}}));
  cs.push_back(One("up_bilinear_hp", {X({1,2,3,4})}, "upsample_bilinear2d.default",
    {TensorArg("self","x"), IntsArg("output_size",{5,7}), BoolArg("align_corners",false)}, {{"y",kF32,{1,2,5,7}}}));
  cs.push_back(One("up_bilinear_scale", {X({1,2,3,4})}, "upsample_bilinear2d.vec",
    {TensorArg("input","x"), NoneArg("output_size"), BoolArg("align_corners",false), FloatsArg("scale_factors",{2.5,1.5})}, {{"y",kF32,{1,2,7,6}}}));
  cs.push_back(One("up_bicubic_hp", {X({1,2,4,5})}, "upsample_bicubic2d.default",
    {TensorArg("self","x"), IntsArg("output_size",{7,9}), BoolArg("align_corners",false)}, {{"y",kF32,{1,2,7,9}}}));
  cs.push_back(One("up_bicubic_ac", {X({1,2,4,5})}, "upsample_bicubic2d.default",
    {TensorArg("self","x"), IntsArg("output_size",{7,9}), BoolArg("align_corners",true)}, {{"y",kF32,{1,2,7,9}}}));
  // pads
  cs.push_back(One("pad_const", {X({1,2,3,4})}, "constant_pad_nd.default",
    {TensorArg("self","x"), IntsArg("pad",{1,2,0,1}), FloatArg("value",0.5)}, {{"y",kF32,{1,2,4,7}}}));
  cs.push_back(One("pad_crop", {X({1,2,3,4})}, "constant_pad_nd.default",
    {TensorArg("self","x"), IntsArg("pad",{-1,2,1,-1})}, {{"y",kF32,{1,2,3,5}}}));
  cs.push_back(One("pad_reflect", {X({1,2,3,4})}, "pad.default",
    {TensorArg("self","x"), IntsArg("pad",{1,2,2,1}), StringArg("mode","reflect")}, {{"y",kF32,{1,2,6,7}}}));
  cs.push_back(One("pad_replicate", {X({1,2,3,4})}, "replication_pad2d.default",
    {TensorArg("self","x"), IntsArg("padding",{1,2,2,1})}, {{"y",kF32,{1,2,6,7}}}));
  cs.push_back(One("pad_circular", {X({1,2,3,4})}, "pad.default",
    {TensorArg("self","x"), IntsArg("pad",{1,2,2,1}), StringArg("mode","circular")}, {{"y",kF32,{1,2,6,7}}}, 19));
  // norms
  cs.push_back(One("native_ln_stats", {X({2,4,5}), {"w",kF32,{4,5}}, {"b",kF32,{4,5}}}, "native_layer_norm.default",
    {TensorArg("input","x"), IntsArg("normalized_shape",{4,5}), TensorArg("weight","w"), TensorArg("bias","b"), FloatArg("eps",1e-5)},
    {{"y",kF32,{2,4,5}}, {"mean",kF32,{2,1,1}}, {"rstd",kF32,{2,1,1}}}));
  cs.push_back(One("native_gn_stats", {X({2,4,3,3}), {"w",kF32,{4}}, {"b",kF32,{4}}}, "native_group_norm.default",
    {TensorArg("input","x"), TensorArg("weight","w"), TensorArg("bias","b"), IntArg("N",2), IntArg("C",4), IntArg("HxW",9), IntArg("group",2), FloatArg("eps",1e-5)},
    {{"y",kF32,{2,4,3,3}}, {"mean",kF32,{2,2}}, {"rstd",kF32,{2,2}}}));
  cs.push_back(One("bn_batch_stats", {X({2,3,4,4}), {"w",kF32,{3}}, {"b",kF32,{3}}}, "_native_batch_norm_legit.no_stats",
    {TensorArg("input","x"), TensorArg("weight","w"), TensorArg("bias","b"), BoolArg("training",true), FloatArg("momentum",0.1), FloatArg("eps",1e-5)},
    {{"y",kF32,{2,3,4,4}}, {"mean",kF32,{3}}, {"invstd",kF32,{3}}}));
  cs.push_back(One("rms_fp16", {{"x",kF16,{2,3,6}}, {"w",kF16,{6}}}, "rms_norm.default",
    {TensorArg("input","x"), IntsArg("normalized_shape",{3,6}), TensorArg("weight","w")}, {{"y",kF16,{2,3,6}}}));
  cs.push_back(One("rms_23", {X({2,3,6}), {"w",kF32,{6}}}, "rms_norm.default",
    {TensorArg("input","x"), IntsArg("normalized_shape",{6}), TensorArg("weight","w"), FloatArg("eps",1e-6)}, {{"y",kF32,{2,3,6}}}, 23));
  cs.push_back(One("fused_rms", {X({2,3,6})}, "_fused_rms_norm.default",
    {TensorArg("input","x"), IntsArg("normalized_shape",{6}), NoneArg("weight"), NoneArg("eps")}, {{"y",kF32,{2,3,6}}, {"rstd",kF32,{2,3,1}}}));
  cs.push_back(One("gn21", {X({2,4,3,3}), {"w",kF32,{4}}, {"b",kF32,{4}}}, "group_norm.default",
    {TensorArg("input","x"), IntArg("num_groups",2), TensorArg("weight","w"), TensorArg("bias","b")}, {{"y",kF32,{2,4,3,3}}}, 21));
  cs.push_back(One("instnorm_running", {X({2,3,4,4}), {"w",kF32,{3}}, {"b",kF32,{3}}, {"rm",kF32,{3}}, {"rv",kF32,{3}}}, "instance_norm.default",
    {TensorArg("input","x"), TensorArg("weight","w"), TensorArg("bias","b"), TensorArg("running_mean","rm"), TensorArg("running_var","rv"), BoolArg("use_input_stats",false), FloatArg("momentum",0.1), FloatArg("eps",1e-5), BoolArg("cudnn_enabled",false)},
    {{"y",kF32,{2,3,4,4}}}));
  // attention
  cs.push_back(One("sdpa_lse", {{"q",kF32,{1,2,4,8}}, {"k",kF32,{1,2,6,8}}, {"v",kF32,{1,2,6,8}}}, "_scaled_dot_product_flash_attention_for_cpu.default",
    {TensorArg("query","q"), TensorArg("key","k"), TensorArg("value","v"), BoolArg("is_causal",true)},
    {{"y",kF32,{1,2,4,8}}, {"lse",kF32,{1,2,4}}}));
  cs.push_back(One("sdpa_boolmask_fullrow", {{"q",kF32,{1,2,4,8}}, {"k",kF32,{1,2,4,8}}, {"v",kF32,{1,2,4,8}}, {"m",DataType::kBool,{4,4}}}, "scaled_dot_product_attention.default",
    {TensorArg("query","q"), TensorArg("key","k"), TensorArg("value","v"), TensorArg("attn_mask","m")},
    {{"y",kF32,{1,2,4,8}}}));
  cs.push_back(One("sdpa_causal_LgtS", {{"q",kF32,{2,5,8}}, {"k",kF32,{2,3,8}}, {"v",kF32,{2,3,4}}}, "scaled_dot_product_attention.default",
    {TensorArg("query","q"), TensorArg("key","k"), TensorArg("value","v"), BoolArg("is_causal",true), FloatArg("scale",0.3)},
    {{"y",kF32,{2,5,4}}}));
  // linear algebra
  cs.push_back(One("tensordot", {{"a",kF32,{2,3,4}}, {"b",kF32,{4,3,5}}}, "tensordot.default",
    {TensorArg("self","a"), TensorArg("other","b"), IntsArg("dims_self",{1,2}), IntsArg("dims_other",{1,0})}, {{"y",kF32,{2,5}}}));
  cs.push_back(One("inner", {{"a",kF32,{2,4}}, {"b",kF32,{3,4}}}, "inner.default",
    {TensorArg("self","a"), TensorArg("other","b")}, {{"y",kF32,{2,3}}}));
  cs.push_back(One("bilinear", {{"p",kF32,{2,3}}, {"q",kF32,{2,4}}, {"w",kF32,{5,3,4}}, {"b",kF32,{5}}}, "bilinear.default",
    {TensorArg("input1","p"), TensorArg("input2","q"), TensorArg("weight","w"), TensorArg("bias","b")}, {{"y",kF32,{2,5}}}));
  cs.push_back(One("addbmm", {{"c",kF32,{3,5}}, {"p",kF32,{2,3,4}}, {"q",kF32,{2,4,5}}}, "addbmm.default",
    {TensorArg("self","c"), TensorArg("batch1","p"), TensorArg("batch2","q"), FloatArg("beta",0.5), IntArg("alpha",2)}, {{"y",kF32,{3,5}}}));
  cs.push_back(One("addr", {{"c",kF32,{3,5}}, {"u",kF32,{3}}, {"v",kF32,{5}}}, "addr.default",
    {TensorArg("self","c"), TensorArg("vec1","u"), TensorArg("vec2","v"), FloatArg("beta",2.0), FloatArg("alpha",0.5)}, {{"y",kF32,{3,5}}}));
  cs.push_back(One("addmv", {{"c",kF32,{3}}, {"a",kF32,{3,4}}, {"v",kF32,{4}}}, "addmv.default",
    {TensorArg("self","c"), TensorArg("mat","a"), TensorArg("vec","v"), IntArg("beta",0)}, {{"y",kF32,{3}}}));
  cs.push_back(One("linear_1dw", {{"x",kF32,{3,6}}, {"w",kF32,{6}}}, "linear.default",
    {TensorArg("input","x"), TensorArg("weight","w")}, {{"y",kF32,{3}}}));
  cs.push_back(One("conv_tr_generic", {{"x",kF32,{1,4,4,4}}, {"w",kF32,{4,3,3,3}}, {"b",kF32,{3}}}, "convolution.default",
    {TensorArg("input","x"), TensorArg("weight","w"), TensorArg("bias","b"), IntsArg("stride",{2,2}), IntsArg("padding",{1,1}), IntsArg("dilation",{1,1}), BoolArg("transposed",true), IntsArg("output_padding",{1,1}), IntArg("groups",1)},
    {{"y",kF32,{1,3,8,8}}}));
  for (auto& c : cs) {
    auto got = ConvertAndCheck(c.b.Build(), c.opset);
    if (!got.ok()) { std::cerr << c.name << ": " << got.status() << "\n"; continue; }
    auto proto = onnx_writer::ToModelProto(got->model);
    std::ofstream f(dir + "/" + c.name + ".onnx", std::ios::binary);
    f << proto.SerializeAsString();
    std::cout << c.name << " ok\n";
  }
}
