"""The layer rules of check_layers.py hold for the tree, and the checker
itself catches what it should (so an empty result is not a silent no-op)."""
import check_layers


def test_no_lower_layer_uses_a_higher_one():
    assert check_layers.check() == []


def test_checker_flags_upward_and_allows_downward_uses():
    v = check_layers.violation
    assert v("core/pt2/pt2_reader.cc", "ops/shape_helpers.h")
    assert v("translate/translator.cc", "ops/shape_helpers.h")
    assert v("ops/activation.cc", "export/export.h")
    assert v("runtime/plan/session.cc", "translate/registry.h")
    assert v("core/onnx/model_writer.cc", "runtime/plan/session.h")
    assert v("reference/interpreter.h", "runtime/plan/session.h")
    assert v("runtime/plan/session.cc", "reference/interpreter.h")
    assert v("verify/verifier.cc", "translate/registry.h")
    assert v("native/main.cc", "wasm/parts_sink.h")
    assert v("ops/activation.cc", "translate/translate_context.h") is None
    assert v("export/export.cc", "passes/pass_manager.h") is None
    assert v("runtime/plan/session.cc", "core/onnx/model_reader.h") is None
    assert v("reference/interpreter.h", "core/tensor/tensor.h") is None
    assert v("verify/verifier.cc", "reference/interpreter.h") is None
    assert v("native/main.cc", "export/export.h") is None


def test_front_ends_use_the_lower_layers_through_export_only():
    v = check_layers.violation
    assert v("native/main.cc", "core/onnx/checker.h")
    assert v("native/main.cc", "core/pt2/pt2_reader.h")
    assert v("wasm/convert_api.cc", "translate/registry.h")
    assert v("native/onnxrun.cc", "runtime/plan/session.h")
    assert v("native/refrun.cc", "reference/interpreter.h")
    assert v("wasm/verify_api.cc", "verify/report.h")
    assert v("native/cli_flags.cc", "passes/pass_manager.h")
    assert v("native/main.cc", "export/export.h") is None
    assert v("native/mapped_file.h", "core/bytes.h") is None
    assert v("wasm/parts_sink.h", "core/io/input_file.h") is None
    assert v("native/apply_weights_command.cc", "core/status_macros.h") is None
    # The named exception holds for its file only.
    assert v("native/spliced_crc.h", "core/archive/zip_reader.h") is None
    assert v("native/main.cc", "core/archive/zip_reader.h")
    # export/ itself stands on every lower layer.
    assert v("export/export.cc", "core/onnx/checker.h") is None
    lv = check_layers.label_violation
    assert lv("native/BUILD", "//core/onnx:checker")
    assert lv("wasm/BUILD", "//translate")
    assert lv("native/BUILD", "//runtime:npz")
    assert lv("native/BUILD", "//core:base") is None
    assert lv("wasm/BUILD", "//export:inspect") is None
    assert lv("native/BUILD", "//core/archive") is None
    assert lv("wasm/BUILD", "//core/archive")
    assert lv("export/BUILD", "//core/onnx:checker") is None


def test_each_room_declares_its_own_namespace():
    v = check_layers.namespace_violation
    assert v("translate/registry.h", "pt2onnx::ops")
    assert v("runtime/plan/session.cc", "pt2onnx::reference")
    assert v("ops/activation.cc", "pt2onnx")
    assert v("translate/registry.h", "pt2onnx::translate") is None
    assert v("ops/fft_helpers.h", "pt2onnx::ops::fft_internal") is None
    assert v("core/pt2/schema.h", "pt2onnx::pt2") is None
    assert v("export/export.h", "pt2onnx") is None
